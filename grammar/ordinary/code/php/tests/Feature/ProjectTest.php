<?php
// policyc ordinary sample: an everyday Laravel feature test (factories, HTTP assertions).
// Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/php/ to measure rule breadth.

declare(strict_types=1);

namespace Tests\Feature;

use App\Models\Project;
use App\Models\User;
use Illuminate\Foundation\Testing\RefreshDatabase;
use Tests\TestCase;

class ProjectTest extends TestCase
{
    use RefreshDatabase;

    private User $user;

    protected function setUp(): void
    {
        parent::setUp();
        $this->user = User::factory()->withTeam()->create();
    }

    public function test_it_lists_the_projects_of_the_team(): void
    {
        Project::factory()->count(3)->for($this->user->team)->create();
        Project::factory()->create();

        $response = $this->actingAs($this->user)->getJson('/api/projects');

        $response->assertOk()->assertJsonCount(3, 'data');
    }

    public function test_it_creates_a_project(): void
    {
        $response = $this->actingAs($this->user)->postJson('/api/projects', [
            'name' => 'Website relaunch',
            'description' => 'New design and content',
        ]);

        $response->assertCreated()->assertJsonPath('data.name', 'Website relaunch');
        $this->assertDatabaseHas('projects', ['name' => 'Website relaunch', 'team_id' => $this->user->team_id]);
    }

    public function test_the_name_is_required(): void
    {
        $response = $this->actingAs($this->user)->postJson('/api/projects', ['name' => '']);

        $response->assertUnprocessable()->assertJsonValidationErrors('name');
    }

    public function test_archiving_twice_is_a_conflict(): void
    {
        $project = Project::factory()->for($this->user->team)->create(['archived_at' => now()]);

        $this->actingAs($this->user)
            ->postJson("/api/projects/{$project->id}/archive")
            ->assertStatus(409);
    }
}
