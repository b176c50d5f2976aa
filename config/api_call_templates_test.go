package config

import (
	"path/filepath"
	"testing"
)

// validate reports api_call templates that can never be sent right, with
// file, line and YAML path.
func TestAPICallTemplatesCheckedAtLoad(t *testing.T) {
	_, err := LoadTaskConfig(filepath.Join("testdata", "broken", "api-call-escaping.yaml"))
	assertErrors(t, err, []string{
		`api-call-escaping.yaml:9: post.post_actions[0].api_call.body: body is not valid JSON: invalid character ',' after top-level value whatever the values`,
		`api-call-escaping.yaml:11: post.post_actions[1].api_call.body: body is not valid JSON`,
		`api-call-escaping.yaml:13: post.post_actions[2].api_call.url: a value after '#' is not supported`,
		`api-call-escaping.yaml:15: post.post_actions[3].api_call.body: a JSON string is not closed`,
	})
}
