# policyc ordinary sample: an everyday RSpec model spec (factories, contexts, matchers).
# Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/ruby/ to measure rule breadth.

require "rails_helper"

RSpec.describe Article, type: :model do
  let(:author) { create(:user) }

  describe "validations" do
    it "requires a title" do
      article = build(:article, author: author, title: "")

      expect(article).not_to be_valid
      expect(article.errors[:title]).to include("can't be blank")
    end

    it "accepts only known statuses" do
      article = build(:article, author: author, status: "secret")

      expect(article).not_to be_valid
    end
  end

  describe "slug" do
    it "is derived from the title" do
      article = create(:article, author: author, title: "Hello, World")

      expect(article.slug).to eq("hello-world")
    end

    it "gets a suffix when taken" do
      create(:article, author: author, title: "Release notes")
      second = create(:article, author: author, title: "Release notes")

      expect(second.slug).to eq("release-notes-2")
    end
  end

  describe "#publish!" do
    it "sets the status and the date" do
      article = create(:article, author: author)

      travel_to Time.zone.local(2024, 3, 1, 9) do
        article.publish!
      end

      expect(article.reload).to have_attributes(status: "published", published_at: Time.zone.local(2024, 3, 1, 9))
    end
  end

  describe "#reading_time" do
    it "is at least one minute" do
      expect(build(:article, body: "short").reading_time).to eq(1)
    end

    it "counts 200 words a minute" do
      expect(build(:article, body: "word " * 450).reading_time).to eq(3)
    end
  end

  describe ".published" do
    it "leaves out drafts and future posts" do
      live = create(:article, author: author, status: "published", published_at: 1.day.ago)
      create(:article, author: author, status: "draft")
      create(:article, author: author, status: "published", published_at: 1.day.from_now)

      expect(Article.published).to contain_exactly(live)
    end
  end
end
