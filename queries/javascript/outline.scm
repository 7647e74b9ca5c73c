; Outline for JavaScript: the ECMAScript query without the TypeScript-only node kinds.
; @symbol: shown, its named children walked one level deeper.
; @pass: not shown, its named children walked at the same depth.
; @symbol.top: shown at depth 0 only, not descended into.
; Anything not captured is skipped with its whole subtree.

[
  (function_declaration)
  (generator_function_declaration)
  (class_declaration)
  (method_definition)
] @symbol

[
  (program)
  (export_statement)
  (expression_statement)
  (statement_block)
  (class_body)
] @pass

; `const f = () => …` and friends.
([
  (lexical_declaration
    (variable_declarator value: [(arrow_function) (function_expression) (generator_function)]))
  (variable_declaration
    (variable_declarator value: [(arrow_function) (function_expression) (generator_function)]))
]) @symbol.top
