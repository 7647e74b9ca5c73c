; Outline for Kotlin. @symbol: shown and descended one level deeper; @pass: walked at the same
; depth; anything else is skipped with its subtree.

[
  (class_declaration)
  (object_declaration)
  (companion_object)
  (function_declaration)
  (secondary_constructor)
] @symbol

[
  (source_file)
  (class_body)
  (enum_class_body)
] @pass
