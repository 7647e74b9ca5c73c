; Outline for Lua. @symbol: shown and descended one level deeper; @symbol.top: shown at depth 0
; only, not descended; @pass: walked at the same depth; anything else is skipped.

(function_declaration) @symbol

(chunk) @pass

; `local f = function() ... end` and `M.f = function() ... end`.
([
  (variable_declaration
    (assignment_statement (expression_list value: (function_definition))))
  (assignment_statement (expression_list value: (function_definition)))
]) @symbol.top
