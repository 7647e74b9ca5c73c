; Definitions for find_symbol, find_references and repo_map, in the style of
; tree-sitter-javascript's tags.scm: @name is the defined identifier, @definition.<kind> the whole
; definition. When one node matches several patterns, the first pattern wins (so a top-level
; `const f = () => {}` is a function, not a const).

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(class_declaration name: (identifier) @name) @definition.class
(class name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.function)
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.function)
(program
  (lexical_declaration "const" (variable_declarator name: (identifier) @name) @definition.const))
(program
  (export_statement
    (lexical_declaration "const" (variable_declarator name: (identifier) @name) @definition.const)))
