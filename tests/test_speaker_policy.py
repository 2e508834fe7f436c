"""Online speaker clustering and self-introductions: pure policies, synthetic embeddings."""

import numpy as np
import pytest

from streamtwin.speakers.clusters import SpeakerClusters, SpeakerNames


def voice(seed: int, dim: int = 256) -> np.ndarray:
    """A speaker's true direction: positive, unit length (like a ReLU'd, L2-normed embedding)."""
    vector = np.abs(np.random.default_rng(seed).normal(size=dim))
    return vector / np.linalg.norm(vector)


def utterance(center: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    vector = np.abs(center + rng.normal(scale=noise, size=center.shape))
    return vector / np.linalg.norm(vector)


def mix(a: np.ndarray, b: np.ndarray, cos: float) -> np.ndarray:
    """A unit vector at cosine ``cos`` from ``a``, towards ``b``."""
    ortho = b - (b @ a) * a
    ortho /= np.linalg.norm(ortho)
    return cos * a + np.sqrt(1 - cos**2) * ortho


def test_three_voices_in_turns_get_three_stable_labels():
    rng = np.random.default_rng(7)
    centers = [voice(1), voice(2), voice(3)]
    clusters = SpeakerClusters()
    order = [0, 1, 2, 0, 1, 2, 2, 0, 1, 0, 2, 1] * 3
    labels = [clusters.assign(utterance(centers[k], 0.02, rng), 3.0).label for k in order]
    assert labels[:3] == ["S1", "S2", "S3"]
    assert all(labels[i] == labels[order.index(k)] for i, k in enumerate(order))
    assert len(clusters.speakers) == 3


def test_a_new_speaker_needs_a_long_utterance_and_a_low_similarity():
    a, b = voice(1), voice(2)
    clusters = SpeakerClusters(threshold=0.85, min_new_s=2.0)
    assert clusters.assign(a, 3.0).label == "S1"
    other = mix(a, b, 0.5)
    short = clusters.assign(other, 1.5)  # short: goes to the best match, however unlike
    assert (short.label, short.new) == ("S1", False) and short.similarity == pytest.approx(0.5, abs=1e-6)
    assert clusters.speakers[0].count == 1  # and does not move the profile
    near = clusters.assign(mix(a, b, 0.9), 4.0)  # long but similar: the same speaker
    assert (near.label, near.new) == ("S1", False)
    assert clusters.speakers[0].count == 2
    far = clusters.assign(other, 2.0)  # long and unlike: a new speaker
    assert (far.label, far.new) == ("S2", True)


def test_the_first_utterance_opens_s1_whatever_its_length():
    clusters = SpeakerClusters()
    assert clusters.assign(voice(1), 0.4).label == "S1"
    assert clusters.match(voice(1)) == "S1"


def test_the_profile_is_a_running_mean():
    a, b = voice(1), voice(2)
    clusters = SpeakerClusters(threshold=0.0)
    clusters.assign(a, 3.0)
    clusters.assign(b, 3.0)
    expected = (a + b) / np.linalg.norm(a + b)
    assert np.allclose(clusters.speakers[0].profile, expected)


def test_the_count_is_capped_and_later_voices_go_to_the_best_match():
    clusters = SpeakerClusters(max_speakers=2)
    centers = [voice(1), voice(2), voice(3)]
    assert [clusters.assign(c, 3.0).label for c in centers[:2]] == ["S1", "S2"]
    third = clusters.assign(centers[2], 5.0)
    assert third.label in ("S1", "S2") and not third.new
    assert len(clusters.speakers) == 2
    with pytest.raises(ValueError):
        SpeakerClusters(max_speakers=0)


def test_match_changes_nothing():
    clusters = SpeakerClusters()
    assert clusters.match(voice(1)) == ""  # before anyone spoke
    clusters.assign(voice(1), 3.0)
    before = clusters.speakers[0].total.copy()
    assert clusters.match(voice(1)) == "S1"
    assert clusters.match(voice(2)) == ""  # under the threshold: maybe a new voice, not known yet
    assert np.array_equal(clusters.speakers[0].total, before) and len(clusters.speakers) == 1


def test_names_attach_to_labels():
    clusters = SpeakerClusters()
    clusters.assign(voice(1), 3.0)
    assert clusters.name_of("S1") == ""
    clusters.set_name("S1", "Priya")
    assert clusters.name_of("S1") == "Priya" and clusters.name_of("S9") == ""


def test_bad_embeddings_are_refused():
    clusters = SpeakerClusters()
    with pytest.raises(ValueError):
        clusters.assign(np.zeros(256), 3.0)
    with pytest.raises(ValueError):
        clusters.assign(np.full(256, np.nan), 3.0)


def test_a_name_sticks_only_to_a_sure_label_and_the_first_one_holds():
    a, b = voice(1), voice(2)
    clusters = SpeakerClusters()
    first = clusters.assign(a, 3.0)
    assert clusters.introduce(first, "David") and clusters.name_of("S1") == "David"
    clusters.assign(b, 3.0)  # S2
    away = (b - a) / np.linalg.norm(b - a)
    guess = clusters.assign(mix(b, away, 0.8), 1.0)  # short, nearest S2 but under the threshold: a guess
    assert guess.label == "S2" and not clusters.introduce(guess, "And")
    assert clusters.name_of("S2") == ""
    sure = clusters.assign(b, 3.0)
    assert clusters.introduce(sure, "Priya") and clusters.name_of("S2") == "Priya"
    assert not clusters.introduce(clusters.assign(a, 3.0), "Dave") and clusters.name_of("S1") == "David"


@pytest.mark.parametrize(
    "text, name",
    [
        ("Priya here. The payment screen is finished.", "Priya"),
        ("Hi, I'm Tom. I will fix the failing tests by Wednesday.", "Tom"),
        ("I'm Tom and I will fix it.", "Tom"),
        ("Hello, my name is Sarah.", "Sarah"),
        ("Good morning, this is Dan speaking. Let's go.", "Dan"),
        ("Hi, this is Mike.", "Mike"),
        ("Okay, Tom here.", "Tom"),
        ("Yes, I'm Tom.", "Tom"),
        ("I'm sorry, I'm late.", ""),
        ("I'm going to send it.", ""),
        ("I am Sure.", ""),
        ("This is Monday.", ""),
        ("This is great.", ""),
        ("I think Tom here is right.", ""),
        ("Thanks, Alice. The website is ready.", ""),
        ("Carol, please fix the search page.", ""),
        ("And here.", ""),  # Whisper's "Anna here."
        ("Come here.", ""),
    ],
)
def test_self_introductions(text, name):
    assert SpeakerNames.introduced(text) == name
