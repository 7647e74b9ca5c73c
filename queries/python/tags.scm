; Definitions for find_symbol, find_references and repo_map, in the style of tree-sitter-python's
; tags.scm: @name is the defined identifier, @definition.<kind> the whole definition. When one
; node matches several patterns, the first pattern wins (so a def in a class is a method).

(class_definition
  body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition
  body: (block
    (decorated_definition
      definition: (function_definition name: (identifier) @name) @definition.method)))
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.const))
