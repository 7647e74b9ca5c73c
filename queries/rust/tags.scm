; Definitions for find_symbol, find_references and repo_map, in the style of tree-sitter-rust's
; tags.scm: @name is the defined identifier, @definition.<kind> the whole definition. When one
; node matches several patterns, the first pattern wins (so a function in an impl is a method).

; Only an impl's or a trait's body holds methods; a `mod { }` or `extern { }` body holds
; functions.
(impl_item body: (declaration_list
  (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list
  (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list
  (function_signature_item name: (identifier) @name) @definition.method))
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(type_item name: (type_identifier) @name) @definition.type
(trait_item name: (type_identifier) @name) @definition.trait
(mod_item name: (identifier) @name body: (_)) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(const_item name: (identifier) @name) @definition.const
(static_item name: (identifier) @name) @definition.const
