; Outline for Python. @symbol: shown and descended one level deeper; @pass: walked at the
; same depth; anything else is skipped with its subtree.

[
  (function_definition)
  (class_definition)
] @symbol

[
  (module)
  (decorated_definition)
  (block)
] @pass
