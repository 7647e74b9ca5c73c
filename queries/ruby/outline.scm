; Outline for Ruby. @symbol: shown and descended one level deeper; @pass: walked at the same
; depth; anything else is skipped with its subtree.

[
  (class)
  (module)
  (singleton_class)
  (method)
  (singleton_method)
] @symbol

[
  (program)
  (body_statement)
] @pass
