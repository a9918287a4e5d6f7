<?php
// policyc ordinary sample: an everyday Eloquent model (casts, relations, scopes, accessors).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/php/ to measure rule breadth.

declare(strict_types=1);

namespace App\Models;

use Illuminate\Database\Eloquent\Builder;
use Illuminate\Database\Eloquent\Casts\Attribute;
use Illuminate\Database\Eloquent\Factories\HasFactory;
use Illuminate\Database\Eloquent\Model;
use Illuminate\Database\Eloquent\Relations\BelongsTo;
use Illuminate\Database\Eloquent\Relations\HasMany;
use Illuminate\Support\Str;

class Project extends Model
{
    use HasFactory;

    protected $fillable = ['name', 'description', 'due_on', 'color'];

    protected function casts(): array
    {
        return [
            'due_on' => 'date',
            'archived_at' => 'datetime',
        ];
    }

    protected static function booted(): void
    {
        static::creating(function (Project $project) {
            $project->slug ??= Str::slug($project->name) . '-' . Str::lower(Str::random(6));
        });
    }

    public function team(): BelongsTo
    {
        return $this->belongsTo(Team::class);
    }

    public function owner(): BelongsTo
    {
        return $this->belongsTo(User::class, 'owner_id');
    }

    public function tasks(): HasMany
    {
        return $this->hasMany(Task::class);
    }

    public function scopeActive(Builder $query): Builder
    {
        return $query->whereNull('archived_at');
    }

    public function scopeDueWithin(Builder $query, int $days): Builder
    {
        return $query->whereBetween('due_on', [now()->startOfDay(), now()->addDays($days)->endOfDay()]);
    }

    protected function progress(): Attribute
    {
        return Attribute::get(function (): int {
            $total = $this->tasks_count ?? $this->tasks()->count();
            if ($total === 0) {
                return 0;
            }
            $done = $this->tasks()->whereNotNull('completed_at')->count();

            return (int) round($done / $total * 100);
        });
    }

    public function isOverdue(): bool
    {
        return $this->due_on !== null && $this->due_on->isPast() && $this->archived_at === null;
    }
}
