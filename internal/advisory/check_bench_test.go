package advisory

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/vulnbench/vulnbench/internal/jsonkeys"
)

// The cost of Open's check of a record against reading only its head, on a real GHSA record.
func benchRecord(b *testing.B) []byte {
	rec, err := os.ReadFile("../../../shared/data/ghsa/advisories/github-reviewed/2023/07/GHSA-hr8g-6v94-x4m9/GHSA-hr8g-6v94-x4m9.json")
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(rec)))
	return rec
}

func BenchmarkRecordHead(b *testing.B) {
	rec := benchRecord(b)
	for b.Loop() {
		var h struct {
			ID        string   `json:"id"`
			Aliases   []string `json:"aliases"`
			Withdrawn string   `json:"withdrawn"`
		}
		if err := json.Unmarshal(rec, &h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecordShape(b *testing.B) {
	rec := benchRecord(b)
	for b.Loop() {
		var s shape
		if err := json.Unmarshal(rec, &s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecordKeys(b *testing.B) {
	rec := benchRecord(b)
	for b.Loop() {
		if e := jsonkeys.Check(rec); e != nil {
			b.Fatal(e)
		}
	}
}

func BenchmarkRecordCheck(b *testing.B) {
	rec := benchRecord(b)
	for b.Loop() {
		if _, err := check("x", rec); err != nil {
			b.Fatal(err)
		}
	}
}
