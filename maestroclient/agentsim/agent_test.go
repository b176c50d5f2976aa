package agentsim

import (
	"context"
	"strings"
	"testing"
)

// TestLoseFinalizersRequiresNoDeletionSweep: with sdk-go's sweep running, a
// work deleting without finalizers is confirmed within 2 s, so the fault
// would model nothing; Start refuses it before connecting.
func TestLoseFinalizersRequiresNoDeletionSweep(t *testing.T) {
	_, err := Start(context.Background(), Options{Consumer: "c1", LoseFinalizers: 1})
	if err == nil || !strings.Contains(err.Error(), "NoDeletionSweep") {
		t.Fatalf("Start(LoseFinalizers without NoDeletionSweep) = %v, want an error naming NoDeletionSweep", err)
	}
}
