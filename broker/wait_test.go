package broker

import (
	"context"
	"testing"
	"time"
)

func TestWait(t *testing.T) {
	if !Wait(t.Context(), time.Millisecond) {
		t.Error("a short wait on a live context must report true")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	start := time.Now()
	if Wait(ctx, time.Hour) {
		t.Error("a wait on a done context must report false")
	}
	if time.Since(start) > time.Second {
		t.Error("a wait on a done context must return at once")
	}
}
