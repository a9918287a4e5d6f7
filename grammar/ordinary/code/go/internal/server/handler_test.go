// policyc ordinary sample: an everyday Go table-driven test (httptest, fakes, subtests).
// Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/go/ to measure rule breadth.

package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

type fakeStore struct {
	items []Item
}

func (f *fakeStore) ListItems(limit, offset int) ([]Item, error) {
	if offset >= len(f.items) {
		return nil, nil
	}
	end := min(offset+limit, len(f.items))
	return f.items[offset:end], nil
}

func (f *fakeStore) GetItem(id int64) (Item, error) {
	for _, item := range f.items {
		if item.ID == id {
			return item, nil
		}
	}
	return Item{}, ErrNotFound
}

func newTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	store := &fakeStore{items: []Item{
		{ID: 1, Name: "Kettle", Price: 2500, CreatedAt: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)},
		{ID: 2, Name: "Toaster", Price: 3200, CreatedAt: time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC)},
	}}
	handler := NewHandler(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	server := httptest.NewServer(handler.Routes())
	t.Cleanup(server.Close)
	return server
}

func TestRoutes(t *testing.T) {
	server := newTestServer(t)

	tests := []struct {
		name       string
		path       string
		wantStatus int
	}{
		{"list", "/items", http.StatusOK},
		{"list with limit", "/items?limit=1", http.StatusOK},
		{"limit too large", "/items?limit=500", http.StatusBadRequest},
		{"one item", "/items/2", http.StatusOK},
		{"missing item", "/items/99", http.StatusNotFound},
		{"bad id", "/items/abc", http.StatusBadRequest},
		{"health", "/healthz", http.StatusNoContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Get(server.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("GET %s: status %d, want %d", tt.path, resp.StatusCode, tt.wantStatus)
			}
		})
	}
}

func TestListItemsBody(t *testing.T) {
	server := newTestServer(t)

	resp, err := http.Get(server.URL + "/items?limit=1&offset=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	var body struct {
		Items []Item `json:"items"`
		Count int    `json:"count"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if body.Count != 1 || body.Items[0].Name != "Toaster" {
		t.Errorf("got %+v, want one item named Toaster", body)
	}
	if got := resp.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
}
