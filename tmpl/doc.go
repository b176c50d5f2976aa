// Package tmpl is the template language of task configs: Go's text/template
// with the functions HyperFleet adapter authors know (FuncNames),
// and the guards that make a template safe to run on every event.
//
// A template is parsed once (Parse, or ParseURL and
// ParseJSON, which escape every value they insert into a URL path
// or a JSON body) and executed many times, concurrently. Execution is
// bounded: steps, output size, time and the work of each function are
// charged to a budget, and an Execute that runs past it returns an error,
// never a partial result. Templates cannot read the environment, files or
// the network. Reads says which data paths a template reads, so a caller
// can know a render's inputs before rendering.
//
// Text is the YAML leaf of a config file that holds a template (the source
// and its YAML path, then the compiled Template).
//
// tmpl imports nothing of this module but internal/configfile (for the
// error list compile checks write to).
package tmpl
