package adapter_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// A pipeline over the in-memory Maestro: the first event creates the
// bundle, the same event again writes nothing, and a recreation waits for
// the agent to confirm the old bundle's deletion before it creates.
func Example() {
	tc, err := config.LoadTaskConfig("testdata/lifecycle/maestro.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	store := memmaestro.New(memmaestro.Options{DeleteBehavior: memmaestro.DeletePending, Consumers: []string{"c1"}})
	p, err := adapter.New(adapter.Options{Task: tc, Maestro: store, API: apistub.New("v1", nil),
		LookupEnv: func(string) (string, bool) { return "", false }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fmt.Println(err)
		return
	}
	run := func(data map[string]any) {
		data["id"], data["kind"], data["generation"] = "x", "Cluster", int64(1)
		res := p.Run(context.Background(), adapter.Event{ID: "ev", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "example", Data: data})
		o := res.Bundles[0]
		fmt.Printf("%s/%s %s, %d Maestro requests, %s\n", o.Operation, o.State, o.Reason, res.MaestroRequests, res.Disposition())
	}
	run(map[string]any{})
	run(map[string]any{})
	run(map[string]any{"rev": "2", "recreate": true})
	store.ConfirmAll() // the agent confirms the old bundle's deletion
	run(map[string]any{"rev": "2", "recreate": true})
	// Output:
	// create/done Created, 2 Maestro requests, ack
	// unchanged/done Unchanged, 1 Maestro requests, ack
	// recreate/pending RecreationPending, 3 Maestro requests, ack
	// recreate/done Recreated, 2 Maestro requests, ack
}
