// policyc ordinary sample: an everyday Kotlin unit test (kotlinx-coroutines-test, fakes).
// Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/kotlin/ to measure rule breadth.

package com.example.notes

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.flow.MutableStateFlow
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.test.UnconfinedTestDispatcher
import kotlinx.coroutines.test.resetMain
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.test.setMain
import kotlin.test.AfterTest
import kotlin.test.BeforeTest
import kotlin.test.Test
import kotlin.test.assertEquals

private class FakeRepository(initial: List<Note>) : NotesRepository {
    val flow = MutableStateFlow(initial)
    override fun notes() = flow
    override suspend fun save(note: Note) {
        flow.value = flow.value.map { if (it.id == note.id) note else it }
    }
    override suspend fun delete(id: Long) {
        flow.value = flow.value.filterNot { it.id == id }
    }
}

@OptIn(ExperimentalCoroutinesApi::class)
class NotesViewModelTest {
    private val notes = listOf(Note(1, "Groceries", "milk, eggs"), Note(2, "Books", "Dune"), Note(3, "Trip", "pack eggs"))

    @BeforeTest
    fun setUp() {
        Dispatchers.setMain(UnconfinedTestDispatcher())
    }

    @AfterTest
    fun tearDown() {
        Dispatchers.resetMain()
    }

    @Test
    fun filtersByTitleOrBody() = runTest {
        val viewModel = NotesViewModel(FakeRepository(notes))
        viewModel.onQueryChange("eggs")

        val state = viewModel.state.first { it is NotesUiState.Ready } as NotesUiState.Ready

        assertEquals(listOf("Groceries", "Trip"), state.notes.map { it.title })
    }

    @Test
    fun pinnedNotesComeFirst() = runTest {
        val repository = FakeRepository(notes)
        val viewModel = NotesViewModel(repository)
        viewModel.togglePin(notes[2])

        val state = viewModel.state.first { it is NotesUiState.Ready } as NotesUiState.Ready

        assertEquals("Trip", state.notes.first().title)
    }
}
