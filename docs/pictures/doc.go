// Package pictures holds the documentation's pictures: each *.svg here is
// drawn by graphviz's dot from the *.dot beside it, and the package's test
// draws every one again and compares (go test ./docs/pictures -update
// rewrites them after a source changed).
package pictures
