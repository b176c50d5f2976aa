package brokertest

import (
	"encoding/json"
	"os"
)

// SentinelMessage is one AMQP delivery as HyperFleet's Sentinel published
// it through hyperfleet-broker (broker/testdata/sentinel-rabbitmq-message.json,
// captured from a queue bound to Sentinel's exchange): no content type, no
// message id, one watermill header, a structured CloudEvent body.
type SentinelMessage struct {
	Body            string            `json:"body"`
	ContentType     string            `json:"content_type"`
	ContentEncoding string            `json:"content_encoding"`
	MessageID       string            `json:"message_id"`
	RoutingKey      string            `json:"routing_key"`
	DeliveryMode    uint8             `json:"delivery_mode"`
	Headers         map[string]string `json:"headers"`
}

// SentinelFixture is the path of the fixture from a broker's test folder
// (broker/rabbitmq, broker/pubsub).
const SentinelFixture = "../testdata/sentinel-rabbitmq-message.json"

// LoadSentinel reads a captured Sentinel message.
func LoadSentinel(path string) (SentinelMessage, error) {
	var m SentinelMessage
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}
