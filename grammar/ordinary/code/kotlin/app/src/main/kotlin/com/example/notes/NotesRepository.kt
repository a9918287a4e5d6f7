// policyc ordinary sample: an everyday Kotlin data layer (Room DAO, Flow, repository interface).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/kotlin/ to measure rule breadth.

package com.example.notes

import androidx.room.Dao
import androidx.room.Entity
import androidx.room.Insert
import androidx.room.OnConflictStrategy
import androidx.room.PrimaryKey
import androidx.room.Query
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.withContext

interface NotesRepository {
    fun notes(): Flow<List<Note>>
    suspend fun save(note: Note)
    suspend fun delete(id: Long)
}

@Entity(tableName = "notes")
data class NoteEntity(
    @PrimaryKey(autoGenerate = true) val id: Long = 0,
    val title: String,
    val body: String,
    val pinned: Boolean,
    val updatedAt: Long,
)

@Dao
interface NoteDao {
    @Query("SELECT * FROM notes ORDER BY updatedAt DESC")
    fun observeAll(): Flow<List<NoteEntity>>

    @Insert(onConflict = OnConflictStrategy.REPLACE)
    suspend fun upsert(note: NoteEntity)

    @Query("DELETE FROM notes WHERE id = :id")
    suspend fun deleteById(id: Long)
}

class RoomNotesRepository(
    private val dao: NoteDao,
    private val clock: () -> Long = System::currentTimeMillis,
    private val io: CoroutineDispatcher = Dispatchers.IO,
) : NotesRepository {

    override fun notes(): Flow<List<Note>> =
        dao.observeAll().map { rows -> rows.map { it.toNote() } }

    override suspend fun save(note: Note) = withContext(io) {
        require(note.title.isNotBlank()) { "A note needs a title" }
        dao.upsert(note.toEntity(clock()))
    }

    override suspend fun delete(id: Long) = withContext(io) {
        dao.deleteById(id)
    }
}

private fun NoteEntity.toNote() = Note(id = id, title = title, body = body, pinned = pinned)

private fun Note.toEntity(now: Long) =
    NoteEntity(id = id, title = title.trim(), body = body, pinned = pinned, updatedAt = now)
