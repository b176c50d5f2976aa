package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// queueHeld lists, with rabbitmqctl, the messages (ready and
// unacknowledged) that each of the run's queues holds: queue itself and
// the queues named queue.<suffix> (the retry queues), but the dead-letter
// queue, which deadLetters takes.
func queueHeld(queue string) (map[string]int, error) {
	out, err := exec.Command("rabbitmqctl", "-q", "list_queues", "name", "messages").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("rabbitmqctl list_queues: %v: %s", err, out)
	}
	return parseQueueHeld(string(out), queue), nil
}

// parseQueueHeld reads rabbitmqctl's "name<TAB>messages" lines (a header
// line, or any line whose count is not a number, is skipped).
func parseQueueHeld(out, queue string) map[string]int {
	held := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(strings.TrimSpace(line), "\t")
		if len(f) != 2 || (f[0] != queue && !strings.HasPrefix(f[0], queue+".")) || f[0] == queue+".dead-letter" {
			continue
		}
		if n, err := strconv.Atoi(f[1]); err == nil {
			held[f[0]] = n
		}
	}
	return held
}

// deadLetters takes every message of the dead-letter queue (an absent queue
// is none) and writes each with its reason header to path.
func deadLetters(rabbitURL, queue, path string) error {
	out, err := newRecorder(path)
	if err != nil {
		return err
	}
	defer out.close()
	conn, err := amqp.DialConfig(rabbitURL, amqp.Config{Dial: amqp.DefaultDial(10 * time.Second)})
	if err != nil {
		return err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if _, err := ch.QueueDeclarePassive(queue, true, false, false, false, nil); err != nil {
		return nil // no queue: nothing was dead-lettered
	}
	for {
		m, ok, err := ch.Get(queue, true)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		var ev struct {
			ID   string `json:"id"`
			Data struct {
				ID         string `json:"id"`
				Generation int    `json:"generation"`
			} `json:"data"`
		}
		_ = json.Unmarshal(m.Body, &ev)
		reason, _ := m.Headers["x-dead-letter-reason"].(string)
		out.add(check.DeadLetter{EventID: ev.ID, Cluster: ev.Data.ID, Generation: ev.Data.Generation, Reason: reason})
	}
}

// listBundles writes every bundle of source that Maestro holds (REST,
// paged) to path.
func listBundles(rest, source, path string) error {
	out, err := newRecorder(path)
	if err != nil {
		return err
	}
	defer out.close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bs, err := fetchBundles(ctx, rest, fmt.Sprintf("source='%s'", source), path+".sample.json")
	for _, b := range bs {
		out.add(b)
	}
	return err
}

// fetchBundles lists the resource bundles matching search, page by page;
// with a sample path it writes the first one there as Maestro sent it.
func fetchBundles(ctx context.Context, rest, search string, sample ...string) ([]check.Bundle, error) {
	var out []check.Bundle
	_, err := stacktest.ListBundles(ctx, rest, search, 500, func(b stacktest.Bundle) {
		if len(out) == 0 && len(sample) > 0 {
			_ = os.WriteFile(sample[0], b.Raw, 0o644)
		}
		out = append(out, bundleOf(b))
	})
	return out, err
}

// bundleOf reads what the checker needs of one REST resource bundle.
func bundleOf(b stacktest.Bundle) check.Bundle {
	name := b.Metadata.Name
	if name == "" {
		name = b.Name
	}
	return check.Bundle{Consumer: b.Consumer, Name: name, ID: b.ID,
		Generation: b.Metadata.Annotations[generationAnnotation], Fingerprint: b.Metadata.Annotations[fingerprintAnnotation],
		Deleting: b.DeletedAt != "" || b.Metadata.DeletionTimestamp != "", Applied: b.Condition("Applied")}
}
