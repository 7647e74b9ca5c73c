; Outline for Swift (class_declaration also covers struct, enum, extension and actor).
; @symbol: shown and descended one level deeper; @pass: walked at the same depth; anything else
; is skipped with its subtree.

[
  (class_declaration)
  (protocol_declaration)
  (function_declaration)
  (protocol_function_declaration)
  (init_declaration)
  (deinit_declaration)
  (subscript_declaration)
] @symbol

[
  (source_file)
  (class_body)
  (enum_class_body)
  (protocol_body)
] @pass
