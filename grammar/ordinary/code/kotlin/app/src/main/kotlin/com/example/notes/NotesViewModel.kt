// policyc ordinary sample: an everyday Android ViewModel in Kotlin (coroutines, StateFlow).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/kotlin/ to measure rule breadth.

package com.example.notes

import androidx.lifecycle.ViewModel
import androidx.lifecycle.viewModelScope
import kotlinx.coroutines.flow.MutableStateFlow
import kotlinx.coroutines.flow.SharingStarted
import kotlinx.coroutines.flow.StateFlow
import kotlinx.coroutines.flow.combine
import kotlinx.coroutines.flow.stateIn
import kotlinx.coroutines.launch

data class Note(val id: Long, val title: String, val body: String, val pinned: Boolean = false)

sealed interface NotesUiState {
    data object Loading : NotesUiState
    data class Ready(val notes: List<Note>, val query: String) : NotesUiState
    data class Failed(val message: String) : NotesUiState
}

class NotesViewModel(private val repository: NotesRepository) : ViewModel() {

    private val query = MutableStateFlow("")
    private val error = MutableStateFlow<String?>(null)

    val state: StateFlow<NotesUiState> = combine(repository.notes(), query, error) { notes, text, failure ->
        when {
            failure != null -> NotesUiState.Failed(failure)
            else -> NotesUiState.Ready(filter(notes, text), text)
        }
    }.stateIn(viewModelScope, SharingStarted.WhileSubscribed(5_000), NotesUiState.Loading)

    fun onQueryChange(text: String) {
        query.value = text
    }

    fun togglePin(note: Note) {
        viewModelScope.launch {
            runCatching { repository.save(note.copy(pinned = !note.pinned)) }
                .onFailure { error.value = it.message ?: "Could not save the note" }
        }
    }

    fun delete(note: Note) {
        viewModelScope.launch {
            runCatching { repository.delete(note.id) }
                .onFailure { error.value = it.message ?: "Could not delete the note" }
        }
    }

    fun dismissError() {
        error.value = null
    }

    private fun filter(notes: List<Note>, text: String): List<Note> {
        val needle = text.trim()
        val matching = if (needle.isEmpty()) {
            notes
        } else {
            notes.filter { it.title.contains(needle, ignoreCase = true) || it.body.contains(needle, ignoreCase = true) }
        }
        return matching.sortedWith(compareByDescending<Note> { it.pinned }.thenBy { it.title.lowercase() })
    }
}
