package web

import (
	"context"
	"fmt"
	"strings"

	"github.com/vulnbench/vulnbench/internal/board"
	"github.com/vulnbench/vulnbench/internal/store"
)

// boardCache is the leaderboard of the runs page, valid while every run's state and attempt
// count are key's.
type boardCache struct {
	key string
	b   *board.Board
	err error
}

// leaderboard returns the board of every suite of the store, as `vulnbench board` shows it
// (board.DefaultOptions: the same figures, intervals and ranks), computed again only when a run
// changed.
func (s *Server) leaderboard(ctx context.Context, runs []store.Run) (*board.Board, error) {
	var k strings.Builder
	for _, r := range runs {
		n, err := s.st.AttemptCount(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&k, "%s\x00%s\x00%d\x00", r.ID, r.State, n)
	}
	s.boardMu.Lock()
	defer s.boardMu.Unlock()
	if s.board != nil && s.board.key == k.String() {
		return s.board.b, s.board.err
	}
	b, err := board.Build(ctx, s.st, board.DefaultOptions())
	s.board = &boardCache{key: k.String(), b: b, err: err}
	return b, err
}

// boardTables are the board's tables as the runs page shows them.
func boardTables(b *board.Board) []board.HTMLTable {
	if b == nil {
		return nil
	}
	return board.HTMLTables(b)
}
