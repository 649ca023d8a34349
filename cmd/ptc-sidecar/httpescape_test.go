package main

import (
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// TestJSONEscapeBytesCountsProtojson: the room the HTTP answer's JSON is
// given at once counts what protojson's escapes add, in every text of a
// turn (a result, prints, a warning, a nested message's), so a text of
// control characters is not grown into a quarter at a time.
func TestJSONEscapeBytesCountsProtojson(t *testing.T) {
	pieces := []string{"a", "é", "世", "\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x01", "\x1f", "<", "&", "\u2028", "\x7f"}
	rng := rand.New(rand.NewPCG(3, 4))
	text := func() string {
		var s string
		for range 1 + rng.IntN(30) {
			s += pieces[rng.IntN(len(pieces))]
		}
		return s
	}
	for range 500 {
		turn := &ptcsidecarv1.Turn{Result: &ptcsidecarv1.Value{Edn: text()}, Prints: []string{text(), text()},
			Warnings: []*ptcsidecarv1.TurnWarning{{Message: text()}}}
		msg := &ptcsidecarv1.EvalTurnResponse{Outcome: &ptcsidecarv1.EvalTurnResponse_Turn{Turn: turn}}
		plain := proto.Clone(turn).(*ptcsidecarv1.Turn)
		// one plain letter each, so that no field is left out as empty
		plain.Result.Edn, plain.Prints[0], plain.Prints[1], plain.Warnings[0].Message = "a", "a", "a", "a"
		withText, err := protojson.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		without, err := protojson.Marshal(&ptcsidecarv1.EvalTurnResponse{Outcome: &ptcsidecarv1.EvalTurnResponse_Turn{Turn: plain}})
		if err != nil {
			t.Fatal(err)
		}
		bytes := len(turn.Result.Edn) + len(turn.Prints[0]) + len(turn.Prints[1]) + len(turn.Warnings[0].Message) - 4
		if got, want := jsonEscapeBytes(msg.ProtoReflect()), len(withText)-len(without)-bytes; got != want {
			t.Fatalf("jsonEscapeBytes of %s is %d, protojson's escapes add %d", withText, got, want)
		}
	}
}
