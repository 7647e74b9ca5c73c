; Outline for TypeScript (the same query serves tsx and javascript).
; @symbol: shown, its named children walked one level deeper.
; @pass: not shown, its named children walked at the same depth.
; @symbol.top: shown at depth 0 only, not descended into.
; Anything not captured is skipped with its whole subtree.

[
  (function_declaration)
  (generator_function_declaration)
  (class_declaration)
  (abstract_class_declaration)
  (interface_declaration)
  (enum_declaration)
  (type_alias_declaration)
  (internal_module)
  (module)
  (function_signature)
  (method_definition)
  (method_signature)
  (abstract_method_signature)
  (public_field_definition)
] @symbol

[
  (program)
  (export_statement)
  (expression_statement)
  (ambient_declaration)
  (statement_block)
  (class_body)
  (interface_body)
] @pass

; `const f = () => …` and friends.
([
  (lexical_declaration
    (variable_declarator value: [(arrow_function) (function_expression) (generator_function)]))
  (variable_declaration
    (variable_declarator value: [(arrow_function) (function_expression) (generator_function)]))
]) @symbol.top
