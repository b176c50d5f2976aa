package rabbitmq

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// Finding 8 (issue 28): a password holding an unescaped / ? # parses as
// host and path ("amqp://user:1234/S3CRET@host/" dials host "user" port
// 1234). Neither the reconnect warnings nor the error print it: Consume
// refuses such a URL before dialling, with the password masked. No broker
// is needed.
func TestReconnectWarningsNeverPrintPassword(t *testing.T) {
	for _, raw := range []string{
		"amqp://user:1234/S3CRET-rmq@127.0.0.1:1/",
		"amqp://user:1234?S3CRET-rmq@127.0.0.1:1/",
		"amqp://user:1234#S3CRET-rmq@127.0.0.1:1/",
		"amqp://user:1@2/S3CRET-rmq@127.0.0.1:1/",
		"amqp://S3CRET-rmq@127.0.0.1:1/",
		"amqp://S3CRET-rmq:@127.0.0.1:1/",
		"amqp:S3CRET-rmq:pw@127.0.0.1:1/",
	} {
		logs := &syncBuffer{}
		o := Options{URL: raw, Topic: "t", SubscriptionID: "s", MinBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond,
			Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		err := New(o).Consume(ctx, func(broker.Message) {})
		cancel()
		errPublish := Publish(context.Background(), raw, "x", "k", []byte("x"), nil)
		out := logs.String()
		for _, text := range []string{out, errText(err), errText(errPublish)} {
			if strings.Contains(text, "S3CRET") {
				t.Errorf("%s: the password is printed:\n%s", raw, text)
			}
		}
		if got := redactURL(raw); strings.Contains(got, "S3CRET") {
			t.Errorf("redactURL(%q) = %q", raw, got)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
