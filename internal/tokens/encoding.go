package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// Encoding names.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
)

// Encoding is one of OpenAI's byte-pair encodings: its mergeable ranks (a token's id is its
// rank) and its pre-tokenizer. It is safe for concurrent use.
type Encoding struct {
	name  string
	ranks map[string]int32
	next  func(s string, i int) int // the end of the piece that starts at i
}

// Load reads an encoding's rank file from the copy embedded in the binary (OpenAI's
// NAME.tiktoken files, as github.com/pkoukk/tiktoken-go-loader ships them): one line per token,
// the token's bytes in base64, a space, its rank.
func Load(name string) (*Encoding, error) {
	e := &Encoding{name: name}
	switch name {
	case O200kBase:
		e.next = nextO200k
	case Cl100kBase:
		e.next = nextCl100k
	default:
		return nil, fmt.Errorf("tokens: no encoding %q (want %s or %s)", name, O200kBase, Cl100kBase)
	}
	file := name + ".tiktoken"
	b, err := assets.Assets.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("tokens: %s: %w", file, err)
	}
	if e.ranks, err = parseRanks(b); err != nil {
		return nil, fmt.Errorf("tokens: %s: %w", file, err)
	}
	return e, nil
}

// parseRanks reads a .tiktoken rank file. Every single byte must be a token: byte-pair
// encoding starts from them.
func parseRanks(b []byte) (map[string]int32, error) {
	ranks := make(map[string]int32, bytes.Count(b, []byte("\n"))+1)
	buf := make([]byte, 0, 256)
	for line := 1; len(b) > 0; line++ {
		l, rest, _ := bytes.Cut(b, []byte("\n"))
		b = rest
		if len(l) == 0 {
			continue
		}
		tok, num, ok := bytes.Cut(l, []byte(" "))
		if !ok {
			return nil, fmt.Errorf("line %d: want TOKEN RANK", line)
		}
		n, err := base64.StdEncoding.Decode(buf[:cap(buf)], tok)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("line %d: token %q is not base64", line, tok)
		}
		r, err := strconv.ParseInt(string(num), 10, 32)
		if err != nil || r < 0 {
			return nil, fmt.Errorf("line %d: rank %q is not a number", line, num)
		}
		ranks[string(buf[:n])] = int32(r)
	}
	for c := 0; c < 256; c++ {
		if _, ok := ranks[string([]byte{byte(c)})]; !ok {
			return nil, fmt.Errorf("byte %#02x is not a token", c)
		}
	}
	return ranks, nil
}

// Name is the encoding's name.
func (e *Encoding) Name() string { return e.name }

// Len is the number of tokens of the encoding, special tokens left out.
func (e *Encoding) Len() int { return len(e.ranks) }

// Rank is the id of the token made of exactly b, if there is one.
func (e *Encoding) Rank(b []byte) (int, bool) {
	r, ok := e.ranks[string(b)]
	return int(r), ok
}

// Encode is the token ids of text, as tiktoken's encode_ordinary gives them: special tokens
// such as <|endoftext|> are ordinary text here, as they are in a chat message's content.
func (e *Encoding) Encode(text string) []int {
	var out []int
	e.pieces(text, func(id int32) { out = append(out, int(id)) })
	return out
}

// Count is len(Encode(text)) without the slice.
func (e *Encoding) Count(text string) int {
	n := 0
	e.pieces(text, func(int32) { n++ })
	return n
}

// pieces calls emit with each token of text in order.
func (e *Encoding) pieces(text string, emit func(int32)) {
	var parts []part
	for i := 0; i < len(text); {
		j := e.next(text, i)
		piece := text[i:j]
		if id, ok := e.ranks[piece]; ok {
			emit(id)
		} else {
			parts = e.merge(piece, parts[:0])
			for k := 0; k+1 < len(parts); k++ {
				emit(e.ranks[piece[parts[k].start:parts[k+1].start]])
			}
		}
		i = j
	}
}

// part is a token boundary during merging: where a part starts, and the rank of the token that
// merging it with the next part would make (math.MaxInt32: none).
type part struct {
	start int
	rank  int32
}

const noRank = math.MaxInt32

// merge is byte-pair encoding of one piece: starting from single bytes, the adjacent pair whose
// merge is the lowest-ranked token is merged (the leftmost of equal ones) until no adjacent pair
// makes a token. It returns the boundaries, the piece's end last.
func (e *Encoding) merge(piece string, parts []part) []part {
	for i := 0; i <= len(piece); i++ {
		parts = append(parts, part{start: i, rank: noRank})
	}
	// rank is the rank of the token spanning parts i to i+skip+1 (merging them), or noRank.
	rank := func(i, skip int) int32 {
		if i+skip+2 < len(parts) {
			if r, ok := e.ranks[piece[parts[i].start:parts[i+skip+2].start]]; ok {
				return r
			}
		}
		return noRank
	}
	for i := 0; i+2 < len(parts); i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 2 {
		best, at := int32(noRank), -1
		for i := 0; i+1 < len(parts); i++ {
			if parts[i].rank < best {
				best, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		parts[at].rank = rank(at, 1)
		if at > 0 {
			parts[at-1].rank = rank(at-1, 1)
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return parts
}
