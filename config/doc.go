// Package config loads and checks the adapter's three files: the adapter
// config, the broker config and the task config. It owns their schemas
// (AdapterConfig, BrokerConfig; the task config's is task.TaskConfig),
// their defaults, the environment variables and flags that override the
// adapter and broker configs (env.go), the checks between files (API
// origins, transports), the envelope and older shapes HyperFleet authors
// write, and the redacted dump.
//
// Load reads the three files and returns a Config whose task is compiled
// (task.CompileTask): every CEL expression type-checked and compiled, every
// template parsed, every manifest ref read. The pipeline then runs with no
// YAML parsing and no compilation per event.
//
// Loading is strict: unknown keys, wrong types and impossible combinations
// are errors, all reported at once by a configfile.Errors whose lines name
// the file, the line and the YAML path. Both spellings HyperFleet adapter
// authors use load: plain snake_case, and the apiVersion/kind/spec envelope
// with camelCase keys.
//
// config imports task, the two languages (tmpl, celenv) and
// internal/configfile; nothing imports it but the packages that run a
// deployment (cmd, adapter's callers, tests).
package config
