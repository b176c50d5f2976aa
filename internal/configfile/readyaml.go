package configfile

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// readYAML reads a config file (a regular file of at most MaxFileBytes)
// and parses its one YAML document, refusing aliases and merge keys that
// expand past MaxYAMLNodes or MaxYAMLDepth before anything decodes them. A
// file without a document, or whose document is null ("---", "null", "~"),
// is an error.
func ReadYAML(path string, l *ErrorList) (*yaml.Node, error) {
	data, err := ReadFileBounded(path, MaxFileBytes)
	if err != nil {
		return nil, Errors{{File: path, Msg: fmt.Sprintf("cannot read: %v", err)}}
	}
	root, err := ParseYAML(data)
	if err != nil {
		return nil, Errors{yamlFieldError(path, err)}
	}
	if root == nil || isEmptyDocument(root) {
		return nil, Errors{{File: path, Msg: "file is empty (no YAML document, or a null one)"}}
	}
	l.Lines[""] = 1
	l.Source = strings.Split(string(data), "\n")
	return root, nil
}

// yamlFieldError names the file and, when known, the line of a YAML error.
func yamlFieldError(path string, err error) FieldError {
	var ye *YAMLError
	if errors.As(err, &ye) {
		return FieldError{File: path, Line: ye.Line, Msg: "invalid YAML: " + ye.Msg}
	}
	return FieldError{File: path, Msg: "invalid YAML: " + err.Error()}
}

func UnwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (l *ErrorList) Result() error {
	if len(l.Errs) == 0 {
		return nil
	}
	return l.Errs.Sorted()
}
