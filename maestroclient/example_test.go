package maestroclient_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// A client on a Maestro server (hack/maestro.sh starts one): read a
// bundle, create it on 404, and act on the sentinels of the error
// contract. (Not run: it needs the server.)
func Example() {
	ctx := context.Background()
	c, err := maestroclient.New(ctx, maestroclient.Options{
		HTTPURL:     "http://127.0.0.1:8000",
		GRPCAddress: "127.0.0.1:8090",
		SourceID:    "my-adapter", // every replica of one adapter shares it
		Timeout:     10 * time.Second,
	})
	if err != nil {
		fmt.Println("options:", err)
		return
	}
	defer c.Close()

	work, err := c.Get(ctx, "cluster1", "cluster1-setup")
	switch {
	case errors.Is(err, adapter.ErrNotFound):
		desired := &workv1.ManifestWork{}
		desired.Name = "cluster1-setup"
		_, err = c.Create(ctx, "cluster1", desired, adapter.Unread)
		if errors.Is(err, adapter.ErrConsumerNotRegistered) {
			fmt.Println("register consumer cluster1 in Maestro first")
		}
	case errors.Is(err, adapter.ErrUnavailable):
		fmt.Println("Maestro is unavailable: retry later")
	case err == nil && work.DeletionTimestamp != nil:
		fmt.Println("being deleted: wait for the agent to confirm (then 404)")
	}
}
