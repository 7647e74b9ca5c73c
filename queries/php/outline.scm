; Outline for PHP. @symbol: shown and descended one level deeper; @pass: walked at the same
; depth; anything else is skipped with its subtree.

[
  (namespace_definition)
  (class_declaration)
  (interface_declaration)
  (trait_declaration)
  (enum_declaration)
  (function_definition)
  (method_declaration)
] @symbol

[
  (program)
  (declaration_list)
  (enum_declaration_list)
] @pass

(namespace_definition body: (compound_statement) @pass)
