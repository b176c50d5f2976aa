package maestroclient

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Every call for a bundle goes through one client, and bundles spread over
// all of them.
func TestPoolRoutesEachBundleToOneClient(t *testing.T) {
	p := &Pool{clients: []*Client{{}, {}, {}, {}}}
	perClient := map[*Client]int{}
	const bundles = 4000
	for i := range bundles {
		consumer, name := fmt.Sprintf("cluster-%d", i%7), fmt.Sprintf("c-%06d-setup", i)
		c := p.client(consumer, name)
		if again := p.client(consumer, name); again != c {
			t.Fatalf("%s/%s routed to two clients", consumer, name)
		}
		perClient[c]++
	}
	if len(perClient) != len(p.clients) {
		t.Fatalf("bundles reached %d of %d clients", len(perClient), len(p.clients))
	}
	for _, n := range perClient {
		if n < bundles/len(p.clients)*3/4 || n > bundles/len(p.clients)*5/4 {
			t.Errorf("uneven spread: %v", perClient)
			break
		}
	}
	// The consumer is part of the key: the same name elsewhere may go elsewhere.
	if p.client("a", "bc") == p.client("ab", "c") && p.client("x", "yz") == p.client("xy", "z") &&
		p.client("m", "no") == p.client("mn", "o") {
		t.Errorf("consumer and name are not separated in the key")
	}
}

func TestNewPool(t *testing.T) {
	insecure := TLSOptions{Insecure: true}
	p, err := NewPool(context.Background(), Options{GRPC: insecure, HTTP: insecure})
	if err != nil {
		t.Fatal(err)
	}
	if p.Size() != DefaultClients {
		t.Errorf("Size() = %d, want the default %d", p.Size(), DefaultClients)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := NewPool(context.Background(), Options{GRPC: insecure, HTTP: insecure, Clients: -1}); err == nil ||
		!strings.Contains(err.Error(), "clients must be positive") {
		t.Errorf("negative Clients: got %v", err)
	}
	if _, err := NewPool(context.Background(), Options{GRPC: insecure, HTTP: insecure, MaxConcurrentReads: -1}); err == nil ||
		!strings.Contains(err.Error(), "max concurrent reads must be positive") {
		t.Errorf("negative MaxConcurrentReads: got %v", err)
	}
}
