package rabbitmq

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rabbitUser creates a RabbitMQ user with a unique password for this test
// (deleted when it ends) and returns its name and password.
func rabbitUser(t *testing.T) (string, string) {
	t.Helper()
	requireRabbit(t)
	if _, err := exec.LookPath("rabbitmqctl"); err != nil {
		t.Skip("rabbitmqctl is not available: cannot create a user with a password of its own")
	}
	user, password := "ba-test-"+newID()[:8], "Pw-"+newID()
	ctl := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("rabbitmqctl", args...).CombinedOutput(); err != nil {
			t.Fatalf("rabbitmqctl %s: %v\n%s", args[0], err, out)
		}
	}
	ctl("add_user", user, password)
	t.Cleanup(func() { _ = exec.Command("rabbitmqctl", "delete_user", user).Run() })
	ctl("set_permissions", "-p", "/", user, ".*", ".*", ".*")
	return user, password
}

// The consumer logs its URL (subscribed, reconnecting) and every failure,
// at debug level too, but never the password: not while consuming,
// settling, being disconnected by the broker and reconnecting, not with
// refused credentials, not while the broker is unreachable.
func TestPasswordNeverLogged(t *testing.T) {
	user, password := rabbitUser(t)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

	o := testOptions(t, "secrets")
	o.URL = fmt.Sprintf("amqp://%s:%s@127.0.0.1:5672/", user, password)
	o.ConnectionName = "bundle-adapter-test " + o.Topic
	o.Logger = logger
	r := start(t, o)
	publish(t, o, "first", map[string]any{"ce-id": "e-1"})
	if err := r.receive(t).Retry(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	publish(t, o, "second", nil)
	if err := r.receive(t).DeadLetter(context.Background(), "malformed: test"); err != nil {
		t.Fatal(err)
	}
	closeConnection(t, o.ConnectionName)
	// The reconnect is seen in the logs (a second "subscribed"), not by
	// polling Ready: the not-ready window lasts one short backoff and a
	// loaded machine can poll past it.
	waitFor(t, "subscribed again after the forced close", func() bool {
		return strings.Count(logs.String(), `"msg":"subscribed"`) >= 2
	})
	waitFor(t, "Ready true again", r.Ready)
	r.Stop(t)

	// Refused credentials: a permanent error, logged and returned.
	wrong := o
	wrong.URL = fmt.Sprintf("amqp://%s:%s-wrong@127.0.0.1:5672/", user, password)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	errRefused := New(wrong).Consume(ctx, func(broker.Message) {})
	if errRefused == nil {
		t.Fatal("Consume with a wrong password succeeded")
	}

	// Unreachable broker: reconnect warnings until the context ends.
	unreachable := o
	unreachable.URL = fmt.Sprintf("amqp://%s:%s@127.0.0.1:1/", user, password)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel2()
	errUnreachable := New(unreachable).Consume(ctx2, func(broker.Message) {})

	// Invalid options: the URL is in the error.
	invalid := o
	invalid.URL = fmt.Sprintf("amqp://%s:%s@127.0.0.1:5672/?heartbeat=x&frame_max=-1", user, password)
	invalid.Topic = ""
	errInvalid := New(invalid).Consume(context.Background(), func(broker.Message) {})

	// Publish, the helper the e2e tests and tools use, names the URL in its errors.
	errPublish := Publish(context.Background(), unreachable.URL, o.Exchange, "k", []byte("x"), nil)

	out := logs.String()
	for _, want := range []string{`"msg":"subscribed"`, user + ":xxxxx@127.0.0.1:5672", "not subscribed; reconnecting"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %q: the test did not exercise what it claims\n%s", want, out)
		}
	}
	if strings.Contains(out, password) {
		t.Errorf("logs leak the password:\n%s", out)
	}
	for name, err := range map[string]error{"refused": errRefused, "unreachable": errUnreachable, "invalid": errInvalid, "publish": errPublish} {
		if err == nil {
			if name == "unreachable" {
				continue // Consume returns nil when its context ends
			}
			t.Errorf("%s: no error", name)
			continue
		}
		t.Logf("%s: %v", name, err)
		if strings.Contains(err.Error(), password) {
			t.Errorf("%s error leaks the password: %v", name, err)
		}
	}
}
