// Package task holds a task config: the per-provider pipeline (params,
// preconditions, resources, post) as its file declares it, and the compiler
// that turns it, once at load, into what the pipeline runs: every CEL
// expression compiled in one celenv.Env, every template parsed (tmpl),
// every manifest compiled into a Manifest tree, every payload into a
// BuildNode tree, structured conditions translated to CEL, and every
// template probed with sample values so that errors a render would meet on
// every event are found at load.
//
// CompileTask reports every problem at once to a configfile.ErrorList, each
// with its YAML path and line. After a successful compile nothing of a task
// config is parsed per event; the compiled values are safe for concurrent
// use.
//
// Reading the file (YAML, the envelope, HyperFleet's older shape) is the
// config package's: config.LoadTaskConfig decodes and calls CompileTask.
// task imports celenv, tmpl and internal/configfile; never config.
package task
