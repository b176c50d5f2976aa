// Package configfile is what every config file of the adapter is read
// with: one bounded reader (ReadFileBounded, MaxFileBytes), a YAML parser
// that refuses alias and merge-key bombs (ParseYAML, MaxYAMLNodes), and a
// strict decoder (Decoder) from YAML nodes into structs: unknown and
// duplicate keys are errors, camelCase keys match snake_case tags, and a
// type with a YAML shape of its own implements NodeDecoder.
//
// Problems are collected in an ErrorList, which knows the line of every
// decoded YAML path, and returned as Errors: every problem of a file at
// once, each naming file, line and YAML path. Bounds shared by several
// files (retry attempts, backoffs) and small checks (OneOf, UniqueNames)
// are here too.
//
// configfile imports nothing of this module but internal/boundedfile.
package configfile
