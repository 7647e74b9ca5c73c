; Outline for Rust. @symbol: shown and descended one level deeper; @pass: walked at the same
; depth; anything else is skipped with its subtree.

[
  (function_item)
  (struct_item)
  (enum_item)
  (trait_item)
  (impl_item)
  (mod_item)
  (macro_definition)
] @symbol

[
  (source_file)
  (declaration_list)
] @pass
