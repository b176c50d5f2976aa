package maestroclient

import (
	"errors"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// TestClassifyAuthorizerAnswers: Maestro's refusals of a publish under mTLS
// authentication. A denial is permanent (no sentinel, not retried); a review
// Maestro could not make because the authorizing API server was unreachable
// or overloaded is ErrUnavailable (retried, then redelivered).
func TestClassifyAuthorizerAnswers(t *testing.T) {
	const sar = `Post "https://127.0.0.1:7999/apis/authorization.k8s.io/v1/subjectaccessreviews"`
	tests := []struct {
		name       string
		serverText string
		retried    bool
	}{
		{"identity not bound (measured)", "unauthorized to publish the event from source s", false},
		{"API server down (measured)", "failed to authorize the request: " + sar + ": dial tcp 127.0.0.1:7999: connect: connection refused", true},
		{"API server timeout", "failed to authorize the request: " + sar + ": net/http: request canceled (Client.Timeout exceeded while awaiting headers)", true},
		{"API server connection lost", "failed to authorize the request: " + sar + ": EOF", true},
		{"API server 503", "failed to authorize the request: the server is currently unable to handle the request (post subjectaccessreviews.authorization.k8s.io)", true},
		{"API server 429", "failed to authorize the request: the server has received too many requests and has asked us to try again later", true},
		{"Maestro may not create reviews", `failed to authorize the request: subjectaccessreviews.authorization.k8s.io is forbidden: User "maestro" cannot create resource "subjectaccessreviews"`, false},
		{"certificate without a group", "failed to authorize the request: groups must be set when user is specified", false},
		{"transport words outside the review's cause", "unauthorized to publish the event from source connection-refused", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := classify(publishErr(tt.serverText))
			if got := errors.Is(err, adapter.ErrUnavailable); got != tt.retried {
				t.Errorf("errors.Is(%v, ErrUnavailable) = %v, want %v", err, got, tt.retried)
			}
			if got := retryable(err); got != tt.retried {
				t.Errorf("retryable = %v, want %v", got, tt.retried)
			}
			for _, s := range []error{adapter.ErrNotFound, adapter.ErrAlreadyExists, adapter.ErrUnderDeletion,
				adapter.ErrConsumerNotRegistered, adapter.ErrInvalid} {
				if errors.Is(err, s) {
					t.Errorf("%v wraps %v", err, s)
				}
			}
		})
	}
}
