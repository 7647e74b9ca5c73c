; Outline for Java. @symbol: shown and descended one level deeper; @pass: walked at the same
; depth; anything else is skipped with its subtree.

[
  (class_declaration)
  (interface_declaration)
  (enum_declaration)
  (record_declaration)
  (method_declaration)
  (constructor_declaration)
] @symbol

[
  (program)
  (class_body)
  (interface_body)
  (enum_body)
] @pass
