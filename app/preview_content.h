/*
** The words simlab-preview's explanation fixtures show, in the language the
** preview draws (--language): a study in German, Chinese or Arabic shows its
** own words, so the shots show how they wrap, shape and mix with numbers.
*/
#ifndef SIMLAB_APP_PREVIEW_CONTENT_H
#define SIMLAB_APP_PREVIEW_CONTENT_H

typedef struct PreviewContent {
    const char *class_husky, *class_wolf; /* class labels */
    const char *gallery_title;
    const char *captions[6]; /* gallery: snow, fur, ears, sky, tail, legs */
    const char *rationale;   /* markdown */
    const char *concepts[4]; /* bars: snow on the ground ... blue sky */
    const char *bars_title, *layout_title, *overlay_caption;
    const char *cf_title, *cf_original, *cf_changed;
    const char *prototype_caption;
} PreviewContent;

/* The content in language tag (en, de, zh-Hans, ar; "zh" and "ar-EG"
** match by their first subtag); English for NULL or any other. Never
** NULL. */
const PreviewContent *preview_content(const char *tag);

#endif
