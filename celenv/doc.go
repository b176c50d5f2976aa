// Package celenv is the CEL language of task configs: the environment every
// expression of one task config is checked and compiled in (Env: its
// variables, the functions hyperfleet-adapter documents, toJson, optional
// chaining, the ext strings and lists libraries), the cost limit every
// evaluation runs under (CostLimit), and Expr, the YAML leaf of a
// config file that holds an expression.
//
// Compile errors are written to a configfile.ErrorList at the expression's
// YAML path and line. A compiled Expr's Program is safe for concurrent use.
//
// celenv imports tmpl (an Env checks which env variables templates read)
// and internal/configfile; nothing else of this module.
package celenv
