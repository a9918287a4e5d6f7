# policyc ordinary sample: an everyday Django views module (class-based views, forms, messages).
# Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/python/ to measure rule breadth.

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse_lazy
from django.views.generic import CreateView, DetailView, ListView, UpdateView

from .forms import CommentForm, PostForm
from .models import Post, Tag


class PostListView(ListView):
    template_name = "blog/post_list.html"
    context_object_name = "posts"
    paginate_by = 10

    def get_queryset(self):
        posts = Post.objects.published().select_related("author").prefetch_related("tags")
        query = self.request.GET.get("q", "").strip()
        if query:
            posts = posts.filter(Q(title__icontains=query) | Q(body__icontains=query))
        tag = self.kwargs.get("tag")
        if tag:
            posts = posts.by_tag(tag)
        return posts

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["query"] = self.request.GET.get("q", "")
        context["tags"] = Tag.objects.annotate(post_count=Count("posts")).filter(post_count__gt=0)
        return context


class PostDetailView(DetailView):
    template_name = "blog/post_detail.html"
    context_object_name = "post"

    def get_queryset(self):
        if self.request.user.is_staff:
            return Post.objects.all()
        return Post.objects.published()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["comments"] = self.object.comments.filter(approved=True)
        context["form"] = CommentForm()
        return context

    def post(self, request, *args, **kwargs):
        self.object = self.get_object()
        form = CommentForm(request.POST)
        if form.is_valid():
            comment = form.save(commit=False)
            comment.post = self.object
            comment.save()
            messages.success(request, "Thanks! Your comment will appear once it is approved.")
            return redirect(self.object.get_absolute_url())
        context = self.get_context_data(object=self.object)
        context["form"] = form
        return self.render_to_response(context)


class PostCreateView(LoginRequiredMixin, CreateView):
    model = Post
    form_class = PostForm
    template_name = "blog/post_form.html"

    def form_valid(self, form):
        form.instance.author = self.request.user
        messages.success(self.request, "Post saved.")
        return super().form_valid(form)


class PostUpdateView(LoginRequiredMixin, UpdateView):
    model = Post
    form_class = PostForm
    template_name = "blog/post_form.html"

    def get_queryset(self):
        return Post.objects.filter(author=self.request.user)


class DraftListView(LoginRequiredMixin, ListView):
    template_name = "blog/drafts.html"
    context_object_name = "drafts"
    success_url = reverse_lazy("blog:drafts")

    def get_queryset(self):
        return Post.objects.filter(author=self.request.user, status=Post.Status.DRAFT)


def publish(request, slug):
    post = get_object_or_404(Post, slug=slug, author=request.user)
    if request.method == "POST":
        post.status = Post.Status.PUBLISHED
        post.save()
        messages.success(request, f"“{post.title}” is live.")
    return redirect(post.get_absolute_url())
