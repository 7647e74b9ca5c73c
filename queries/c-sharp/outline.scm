; Outline for C#. @symbol: shown and descended one level deeper; @pass: walked at the same
; depth; anything else is skipped with its subtree.

[
  (namespace_declaration)
  (file_scoped_namespace_declaration)
  (class_declaration)
  (interface_declaration)
  (struct_declaration)
  (enum_declaration)
  (record_declaration)
  (method_declaration)
  (constructor_declaration)
  (property_declaration)
] @symbol

[
  (compilation_unit)
  (declaration_list)
] @pass
