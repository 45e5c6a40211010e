/*
** simlab-preview's explanation words in English, German, Simplified Chinese
** and Arabic (preview_content.h). The rationale mixes bold, italic, a list
** and a number with a percent sign, as a language model's would.
*/
#include "app/preview_content.h"

#include <string.h>

static const PreviewContent EN = {
    "Husky",
    "Wolf",
    "Concepts the model found in this picture",
    {"snow", "fur", "ears", "sky", "tail", "legs"},
    "The model answers **Husky** mainly because of the *snow* under the "
    "animal, not because of the animal itself.\n\n"
    "- the white ground covers a third of the picture\n"
    "- the animal's head and ears are **barely** used\n\n"
    "Treat its answer with care when the ground is white.  \n"
    "(written by a language model from the attribution map)",
    {"snow on the ground", "grey fur", "pointed ears", "blue sky"},
    "Concept importance",
    "Concepts the model used",
    "Region of the strongest concept: snow on the ground",
    "The smallest change that flips the answer",
    "Original: the model says Husky",
    "Changed: the model says Wolf",
    "Prototype 7 of class Husky",
};

static const PreviewContent DE = {
    "Husky",
    "Wolf",
    "Konzepte, die das Modell in diesem Bild gefunden hat",
    {"Schnee", "Fell", "Ohren", "Himmel", "Schwanz", "Beine"},
    "Das Modell antwortet **Husky** vor allem wegen des *Schnees* unter dem "
    "Tier, nicht wegen des Tieres selbst.\n\n"
    "- der weiße Boden bedeckt 33 % des Bildes\n"
    "- Kopf und Ohren des Tieres zählen **kaum**\n\n"
    "Seien Sie vorsichtig mit der Antwort, wenn der Boden weiß ist.  \n"
    "(von einem Sprachmodell aus der Attributionskarte geschrieben)",
    {"Schnee auf dem Boden", "graues Fell", "spitze Ohren", "blauer Himmel"},
    "Bedeutung der Konzepte",
    "Konzepte, die das Modell genutzt hat",
    "Region des stärksten Konzepts: Schnee auf dem Boden",
    "Die kleinste Änderung, die die Antwort umkehrt",
    "Original: Das Modell sagt Husky",
    "Geändert: Das Modell sagt Wolf",
    "Prototyp 7 der Klasse Husky",
};

static const PreviewContent ZH = {
    "哈士奇",
    "狼",
    "模型在这张图片中发现的概念",
    {"雪", "毛", "耳朵", "天空", "尾巴", "腿"},
    "模型回答 **哈士奇**，主要是因为动物下面的*雪*，而不是因为动物本身。\n\n"
    "- 白色的地面占了图片的 33%\n"
    "- 动物的头和耳朵**几乎**没有被用到\n\n"
    "当地面是白色时，请谨慎对待它的回答。  \n"
    "（由语言模型根据归因图写成）",
    {"地上的雪", "灰色的毛", "尖耳朵", "蓝天"},
    "概念的重要性",
    "模型使用的概念",
    "最强概念的区域：地上的雪",
    "能改变答案的最小变化",
    "原图：模型说哈士奇",
    "修改后：模型说狼",
    "哈士奇类的原型 7",
};

static const PreviewContent AR = {
    "هاسكي",
    "ذئب",
    "المفاهيم التي وجدها النموذج في هذه الصورة",
    {"الثلج", "الفرو", "الأذنان", "السماء", "الذيل", "الأرجل"},
    "يجيب النموذج **هاسكي** بسبب *الثلج* تحت الحيوان أساسًا، وليس بسبب "
    "الحيوان نفسه.\n\n"
    "- الأرض البيضاء تغطي 33% من الصورة\n"
    "- رأس الحيوان وأذناه **بالكاد** تُستخدم\n\n"
    "تعامل مع إجابته بحذر عندما تكون الأرض بيضاء.  \n"
    "(كتبه نموذج لغوي من خريطة الإسناد)",
    {"الثلج على الأرض", "الفرو الرمادي", "الأذنان المدببتان", "السماء الزرقاء"},
    "أهمية المفاهيم",
    "المفاهيم التي استخدمها النموذج",
    "منطقة أقوى مفهوم: الثلج على الأرض",
    "أصغر تغيير يقلب الإجابة",
    "الأصل: النموذج يقول هاسكي",
    "بعد التغيير: النموذج يقول ذئب",
    "النموذج الأولي 7 للفئة هاسكي",
};

/* Whether tag's first subtag is lang. */
static int is_lang(const char *tag, const char *lang)
{
    size_t n = strlen(lang);
    return strncmp(tag, lang, n) == 0 && (tag[n] == 0 || tag[n] == '-');
}

const PreviewContent *preview_content(const char *tag)
{
    if (!tag) {
        return &EN;
    }
    return is_lang(tag, "de")   ? &DE
           : is_lang(tag, "zh") ? &ZH
           : is_lang(tag, "ar") ? &AR
                                : &EN;
}
