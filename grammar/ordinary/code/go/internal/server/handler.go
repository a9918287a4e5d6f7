// policyc ordinary sample: an everyday Go HTTP handler (net/http, JSON, context).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/go/ to measure rule breadth.

package server

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// Item is one entry of the catalogue.
type Item struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Price     int64     `json:"price_cents"`
	CreatedAt time.Time `json:"created_at"`
}

// Store is what the handlers need from the database.
type Store interface {
	ListItems(limit, offset int) ([]Item, error)
	GetItem(id int64) (Item, error)
}

// ErrNotFound is returned by a Store when an item does not exist.
var ErrNotFound = errors.New("not found")

// Handler serves the catalogue API.
type Handler struct {
	store  Store
	logger *slog.Logger
}

// NewHandler returns a Handler using the given store and logger.
func NewHandler(store Store, logger *slog.Logger) *Handler {
	return &Handler{store: store, logger: logger}
}

// Routes registers the handler's routes on a new mux.
func (h *Handler) Routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items", h.listItems)
	mux.HandleFunc("GET /items/{id}", h.getItem)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

func (h *Handler) listItems(w http.ResponseWriter, r *http.Request) {
	limit := intParam(r, "limit", 20)
	offset := intParam(r, "offset", 0)
	if limit < 1 || limit > 100 {
		writeError(w, http.StatusBadRequest, "limit must be between 1 and 100")
		return
	}
	items, err := h.store.ListItems(limit, offset)
	if err != nil {
		h.logger.Error("list items", "err", err)
		writeError(w, http.StatusInternalServerError, "could not list items")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items, "count": len(items)})
}

func (h *Handler) getItem(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, "id must be a number")
		return
	}
	item, err := h.store.GetItem(id)
	switch {
	case errors.Is(err, ErrNotFound):
		writeError(w, http.StatusNotFound, "item not found")
	case err != nil:
		h.logger.Error("get item", "id", id, "err", err)
		writeError(w, http.StatusInternalServerError, "could not load item")
	default:
		writeJSON(w, http.StatusOK, item)
	}
}

func intParam(r *http.Request, name string, fallback int) int {
	value, err := strconv.Atoi(r.URL.Query().Get(name))
	if err != nil {
		return fallback
	}
	return value
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]string{"error": message})
}
