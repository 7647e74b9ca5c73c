; Outline for C and C++ (both parse with the C++ grammar).
; @symbol: shown, named children walked one level deeper. @symbol.leaf: shown, not descended.
; @pass: walked at the same depth. Anything else is skipped with its subtree.

[
  (function_definition)
  (namespace_definition)
  (class_specifier body: (_))
  (struct_specifier body: (_))
  (union_specifier body: (_))
  (enum_specifier body: (_))
] @symbol

; Prototypes: in a header, or a method declared in a class body.
[
  (declaration declarator: (function_declarator))
  (field_declaration declarator: (function_declarator))
  (type_definition type: [
    (struct_specifier body: (_))
    (union_specifier body: (_))
    (enum_specifier body: (_))])
] @symbol.leaf

[
  (translation_unit)
  (declaration_list)
  (field_declaration_list)
  (template_declaration)
  (linkage_specification)
  (preproc_ifdef)
  (preproc_if)
  (preproc_else)
  (preproc_elif)
] @pass

; `struct S { ... } s;` shows the struct.
(declaration type: (_ body: (_)) @symbol)
