// Package config loads and checks the adapter's three files (adapter
// config, broker config, task config) and compiles what they hold once, at
// load: every CEL expression is type-checked and compiled into a program,
// every template is parsed, every manifest ref is read. The pipeline then
// runs with no YAML parsing and no compilation per event.
//
// Loading is strict: unknown keys, wrong types and impossible combinations
// are errors, all reported at once by a ValidationError whose lines name
// the file, the line and the YAML path. Both spellings HyperFleet adapter
// authors use load: plain snake_case, and the apiVersion/kind/spec envelope
// with camelCase keys. Environment variables and flags override the adapter
// and broker configs (env.go).
//
// config imports nothing else of this module; bundles and adapter import it.
package config
