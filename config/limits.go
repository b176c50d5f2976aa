package config

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
)

// The bounds below are enforced where the reading happens (the bounded
// file reader and YAML parser, the task compiler, the template budget);
// they are named here too because error texts and docs/configuration.md
// name them as config.<Name>, the package a user's config goes through
// (TestNamedBoundsExist).
const (
	// MaxFileBytes bounds every file read while loading a config.
	MaxFileBytes = configfile.MaxFileBytes
	// MaxYAMLNodes bounds a YAML document's nodes once aliases and merge
	// keys are expanded; MaxYAMLDepth bounds its nesting.
	MaxYAMLNodes = configfile.MaxYAMLNodes
	MaxYAMLDepth = configfile.MaxYAMLDepth
	// MaxRetryAttempts bounds every retry_attempts key.
	MaxRetryAttempts = configfile.MaxRetryAttempts
	// MaxBackoff bounds broker.delivery.max_backoff and min_backoff.
	MaxBackoff = configfile.MaxBackoff
	// MaxRedeletes bounds resources[].lifecycle.delete.redeletes.
	MaxRedeletes = task.MaxRedeletes
	// MaxTemplateSteps is the template step budget of one rendering.
	MaxTemplateSteps = tmpl.MaxSteps
	// MaxTemplateOutputBytes bounds what one template execution writes.
	MaxTemplateOutputBytes = tmpl.MaxOutputBytes
)
