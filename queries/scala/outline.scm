; Outline for Scala 2 and 3. @symbol: shown and descended one level deeper; @pass: walked at
; the same depth; anything else is skipped with its subtree.

[
  (class_definition)
  (object_definition)
  (trait_definition)
  (enum_definition)
  (function_definition)
  (function_declaration)
  (given_definition)
  (extension_definition)
  (package_object)
] @symbol

[
  (compilation_unit)
  (template_body)
  (enum_body)
  (package_clause)
] @pass
