; Outline for Go. @symbol: shown and descended one level deeper; @pass: walked at the same
; depth; anything else is skipped with its subtree.

[
  (function_declaration)
  (method_declaration)
  (type_spec)
] @symbol

[
  (source_file)
  (type_declaration)
] @pass
