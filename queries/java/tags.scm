; Definitions for find_symbol, find_references and repo_map, in the style of tree-sitter-java's
; tags.scm: @name is the defined identifier, @definition.<kind> the whole definition.

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(enum_constant name: (identifier) @name) @definition.const
