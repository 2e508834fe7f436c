"""Speech to text as it is spoken: Whisper on CTranslate2, the streaming-agreement policy, second readings."""
