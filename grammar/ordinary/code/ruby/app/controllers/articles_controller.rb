# policyc ordinary sample: an everyday Rails controller (strong parameters, before_action, responds).
# Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/ruby/ to measure rule breadth.

class ArticlesController < ApplicationController
  before_action :authenticate_user!, except: %i[index show]
  before_action :set_article, only: %i[show edit update publish]
  before_action :require_author!, only: %i[edit update publish]

  def index
    @articles = Article.published.recent.includes(:author, :tags)
    @articles = @articles.tagged(params[:tag]) if params[:tag].present?
    @articles = @articles.page(params[:page]).per(10)

    respond_to do |format|
      format.html
      format.json { render json: @articles.as_json(only: %i[title slug published_at]) }
    end
  end

  def show
    raise ActiveRecord::RecordNotFound unless @article.published? || @article.author == current_user

    @comments = @article.comments.order(created_at: :asc)
  end

  def new
    @article = current_user.articles.build
  end

  def create
    @article = current_user.articles.build(article_params)

    if @article.save
      redirect_to @article, notice: "Draft saved."
    else
      render :new, status: :unprocessable_entity
    end
  end

  def edit; end

  def update
    if @article.update(article_params)
      redirect_to @article, notice: "Article updated."
    else
      render :edit, status: :unprocessable_entity
    end
  end

  def publish
    @article.publish!
    redirect_to @article, notice: "Article published."
  rescue ActiveRecord::RecordInvalid => e
    redirect_to edit_article_path(@article), alert: e.record.errors.full_messages.to_sentence
  end

  private

  def set_article
    @article = Article.find_by!(slug: params[:id])
  end

  def require_author!
    return if @article.author == current_user

    redirect_to @article, alert: "Only the author can change this article."
  end

  def article_params
    params.require(:article).permit(:title, :body, tag_ids: [])
  end
end
