<?php
// policyc ordinary sample: an everyday Laravel controller (form requests, resources, policies).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/php/ to measure rule breadth.

declare(strict_types=1);

namespace App\Http\Controllers;

use App\Http\Requests\StoreProjectRequest;
use App\Http\Requests\UpdateProjectRequest;
use App\Http\Resources\ProjectResource;
use App\Models\Project;
use Illuminate\Http\JsonResponse;
use Illuminate\Http\Request;
use Illuminate\Http\Resources\Json\AnonymousResourceCollection;

class ProjectController extends Controller
{
    public function index(Request $request): AnonymousResourceCollection
    {
        $projects = Project::query()
            ->whereBelongsTo($request->user()->team)
            ->when($request->string('search')->isNotEmpty(), function ($query) use ($request) {
                $query->where('name', 'like', '%' . $request->string('search') . '%');
            })
            ->withCount('tasks')
            ->latest()
            ->paginate(perPage: 25);

        return ProjectResource::collection($projects);
    }

    public function store(StoreProjectRequest $request): JsonResponse
    {
        $project = $request->user()->team->projects()->create($request->validated());

        return (new ProjectResource($project))
            ->response()
            ->setStatusCode(201);
    }

    public function show(Project $project): ProjectResource
    {
        $this->authorize('view', $project);

        return new ProjectResource($project->load(['owner', 'tasks' => fn ($query) => $query->latest()->limit(10)]));
    }

    public function update(UpdateProjectRequest $request, Project $project): ProjectResource
    {
        $this->authorize('update', $project);

        $project->update($request->validated());

        return new ProjectResource($project->refresh());
    }

    public function archive(Project $project): JsonResponse
    {
        $this->authorize('update', $project);

        if ($project->archived_at !== null) {
            return response()->json(['message' => 'Project is already archived.'], 409);
        }

        $project->forceFill(['archived_at' => now()])->save();

        return response()->json(['message' => 'Project archived.']);
    }
}
