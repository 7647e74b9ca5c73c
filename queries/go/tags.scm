; Definitions for find_symbol, find_references and repo_map, in the style of tree-sitter-go's
; tags.scm: @name is the defined identifier, @definition.<kind> the whole definition. When one
; node matches several patterns, the first pattern wins.

(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(method_elem name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(const_spec name: (identifier) @name) @definition.const
