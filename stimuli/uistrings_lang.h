/*
** The shipped translations of the runner's strings (stimuli/uistrings.h):
** one row per UiKey, in enum order: the key's name, then the text in each
** shipped language, in the order of ui_lang_tags. Included by uistrings.c
** only.
*/
#ifndef SIMLAB_STIMULI_UISTRINGS_LANG_H
#define SIMLAB_STIMULI_UISTRINGS_LANG_H

enum { UI_N_LANG = 7 };

static const char *const ui_lang_tags[UI_N_LANG] = {"en",      "de", "fr", "es",
                                                    "zh-Hans", "ja", "ar"};

static const struct {
    const char *key;
    const char *text[UI_N_LANG];
} ui_rows[] = {
    [UI_CONTINUE] = {"continue",
                     {"Continue", "Weiter", "Continuer", "Continuar", "继续",
                      "次へ", "متابعة"}},
    [UI_CONTINUE_WAIT] = {"continue.wait",
                          {"%s (%d s)", "%s (%d s)", "%s (%d s)", "%s (%d s)",
                           "%s（%d 秒）", "%s（%d 秒）", "%s (%d ث)"}},
    [UI_DEADLINE_LEFT] = {"deadline.left",
                          {"%d s left", "Noch %d s", "Encore %d s",
                           "Quedan %d s", "剩余 %d 秒", "残り %d 秒",
                           "متبقٍ %d ث"}},
    [UI_CONSENT_AGREE] = {"consent.agree",
                          {"I agree", "Ich stimme zu", "J'accepte", "Acepto",
                           "我同意", "同意する", "أوافق"}},
    [UI_CONSENT_DECLINE] = {"consent.decline",
                            {"I do not agree", "Ich stimme nicht zu",
                             "Je n'accepte pas", "No acepto", "我不同意",
                             "同意しない", "لا أوافق"}},
    [UI_TRY_AGAIN] = {"feedback.try_again",
                      {"Try again", "Noch einmal versuchen", "Réessayer",
                       "Intentar de nuevo", "再试一次", "もう一度",
                       "حاول مرة أخرى"}},
    [UI_PREDICT_QUESTION] = {"predict.question",
                             {"What will the model output?",
                              "Was wird das Modell ausgeben?",
                              "Que va répondre le modèle ?",
                              "¿Qué responderá el modelo?", "模型会输出什么？",
                              "モデルは何を出力しますか？",
                              "ماذا سيُخرج النموذج؟"}},
    [UI_CF_QUESTION] = {"counterfactual.question",
                        {"What will the model output for the changed input?",
                         "Was wird das Modell für die geänderte Eingabe "
                         "ausgeben?",
                         "Que va répondre le modèle pour l'entrée modifiée ?",
                         "¿Qué responderá el modelo para la entrada "
                         "modificada?",
                         "对于修改后的输入，模型会输出什么？",
                         "変更後の入力に対して、モデルは何を出力しますか？",
                         "ماذا سيُخرج النموذج للمُدخل المُعدَّل؟"}},
    [UI_RATING_QUESTION] = {"rating.question",
                            {"Does this explanation show me why the system "
                             "thought what it did?",
                             "Zeigt mir diese Erklärung, warum das System so "
                             "entschieden hat?",
                             "Cette explication me montre-t-elle pourquoi le "
                             "système a pensé ce qu'il a pensé ?",
                             "¿Me muestra esta explicación por qué el sistema "
                             "pensó lo que pensó?",
                             "这个解释是否让我明白了系统为什么这样判断？",
                             "この説明から、システムがなぜそう判断したのかが"
                             "分かりますか？",
                             "هل يوضح لي هذا التفسير سبب حكم النظام بما حكم "
                             "به؟"}},
    [UI_RATING_LOW] = {"rating.low",
                       {"Not at all", "Überhaupt nicht", "Pas du tout",
                        "En absoluto", "完全没有", "まったくない", "إطلاقًا"}},
    [UI_RATING_HIGH] = {"rating.high",
                        {"Completely", "Vollständig", "Tout à fait",
                         "Completamente", "完全是", "完全に", "تمامًا"}},
    [UI_QUIZ_RETRY] = {"quiz.retry",
                       {"Please try this question again.",
                        "Bitte beantworten Sie diese Frage noch einmal.",
                        "Veuillez répondre à nouveau à cette question.",
                        "Por favor, responda de nuevo a esta pregunta.",
                        "请再回答一次这个问题。",
                        "もう一度この質問に答えてください。",
                        "يُرجى الإجابة عن هذا السؤال مرة أخرى."}},
    [UI_FEEDBACK_CORRECT] = {"feedback.correct",
                             {"Correct", "Richtig", "Correct", "Correcto",
                              "正确", "正解", "صحيح"}},
    [UI_FEEDBACK_WRONG] = {"feedback.wrong",
                           {"Not quite", "Nicht ganz", "Pas tout à fait",
                            "No exactamente", "不太对", "惜しい", "ليس تمامًا"}},
    [UI_FEEDBACK_QUIZ_RIGHT] =
        {"feedback.quiz_right",
         {"That is the right answer.", "Das ist die richtige Antwort.",
          "C'est la bonne réponse.", "Esa es la respuesta correcta.",
          "这是正确答案。", "正しい答えです。", "هذه هي الإجابة الصحيحة."}},
    [UI_FEEDBACK_QUIZ_ANSWER] = {"feedback.quiz_answer",
                                 {"The right answer is: **%s**",
                                  "Die richtige Antwort ist: **%s**",
                                  "La bonne réponse est : **%s**",
                                  "La respuesta correcta es: **%s**",
                                  "正确答案是：**%s**", "正しい答え：**%s**",
                                  "الإجابة الصحيحة هي: **%s**"}},
    [UI_FEEDBACK_QUIZ_AGAIN] = {"feedback.quiz_again",
                                {"Please read the question again and choose "
                                 "another answer.",
                                 "Bitte lesen Sie die Frage noch einmal und "
                                 "wählen Sie eine andere Antwort.",
                                 "Veuillez relire la question et choisir une "
                                 "autre réponse.",
                                 "Por favor, lea la pregunta de nuevo y elija "
                                 "otra respuesta.",
                                 "请重新阅读问题并选择另一个答案。",
                                 "もう一度質問を読んで、別の答えを選んでくださ"
                                 "い。",
                                 "يُرجى قراءة السؤال مرة أخرى واختيار إجابة "
                                 "أخرى."}},
    [UI_FEEDBACK_MODEL_OUTPUT] = {"feedback.model_output",
                                  {"The model's output was **%s**.",
                                   "Die Ausgabe des Modells war **%s**.",
                                   "La réponse du modèle était **%s**.",
                                   "La respuesta del modelo fue **%s**.",
                                   "模型的输出是 **%s**。",
                                   "モデルの出力は **%s** でした。",
                                   "كان ناتج النموذج **%s**."}},
    [UI_FEEDBACK_MODEL_AGAIN] = {"feedback.model_again",
                                 {"That is not what the model answered. Try "
                                  "again.",
                                  "Das hat das Modell nicht geantwortet. "
                                  "Versuchen Sie es noch einmal.",
                                  "Ce n'est pas ce que le modèle a répondu. "
                                  "Réessayez.",
                                  "Eso no es lo que respondió el modelo. "
                                  "Inténtelo de nuevo.",
                                  "模型的回答不是这个。请再试一次。",
                                  "モデルの答えはそれではありません。もう一度"
                                  "試してください。",
                                  "ليست هذه إجابة النموذج. حاول مرة أخرى."}},
    [UI_ITEM_TRUE_LABEL] = {"item.true_label",
                            {"True label", "Richtige Klasse", "Vraie classe",
                             "Clase real", "真实标签", "正解ラベル",
                             "التصنيف الصحيح"}},
    [UI_ITEM_MODEL_OUTPUT] = {"item.model_output",
                              {"Model output", "Ausgabe des Modells",
                               "Réponse du modèle", "Respuesta del modelo",
                               "模型输出", "モデルの出力", "ناتج النموذج"}},
    [UI_ITEM_MODEL] = {"item.model",
                       {"Model", "Modell", "Modèle", "Modelo", "模型", "モデル",
                        "النموذج"}},
    [UI_ITEM_ORIGINAL] = {"item.original",
                          {"Original input", "Ursprüngliche Eingabe",
                           "Entrée d'origine", "Entrada original", "原始输入",
                           "元の入力", "المُدخل الأصلي"}},
    [UI_ITEM_CHANGED] = {"item.changed",
                         {"Changed input", "Geänderte Eingabe",
                          "Entrée modifiée", "Entrada modificada",
                          "修改后的输入", "変更後の入力", "المُدخل المُعدَّل"}},
    [UI_ITEM_UNCHANGED] = {"item.unchanged",
                           {"Changed input: no change",
                            "Geänderte Eingabe: keine Änderung",
                            "Entrée modifiée : aucun changement",
                            "Entrada modificada: sin cambios",
                            "修改后的输入：没有改变", "変更後の入力：変更なし",
                            "المُدخل المُعدَّل: بلا تغيير"}},
    [UI_ITEM_INPUT] = {"item.input",
                       {"Input", "Eingabe", "Entrée", "Entrada", "输入", "入力",
                        "المُدخل"}},
    [UI_ITEM_EXPLANATION] = {"item.explanation",
                             {"Explanation", "Erklärung", "Explication",
                              "Explicación", "解释", "説明", "التفسير"}},
    [UI_ITEM_EXPLANATION_ORIGINAL] =
        {"item.explanation_original",
         {"Explanation of the model's output on the original input",
          "Erklärung der Ausgabe des Modells für die ursprüngliche Eingabe",
          "Explication de la réponse du modèle pour l'entrée d'origine",
          "Explicación de la respuesta del modelo para la entrada original",
          "模型对原始输入的输出的解释", "元の入力に対するモデルの出力の説明",
          "تفسير ناتج النموذج للمُدخل الأصلي"}},
    [UI_RESERVOIR_TITLE] = {"reservoir.title",
                            {"Examples from this session: the model's answers",
                             "Beispiele aus diesem Durchgang: die Antworten "
                             "des Modells",
                             "Exemples de cette session : les réponses du "
                             "modèle",
                             "Ejemplos de esta sesión: las respuestas del "
                             "modelo",
                             "本轮示例：模型的回答",
                             "このセッションの例：モデルの答え",
                             "أمثلة من هذه الجلسة: إجابات النموذج"}},
    [UI_RESERVOIR_SCROLL] = {"reservoir.scroll",
                             {"Scroll down to see this session's examples "
                              "again.",
                              "Scrollen Sie nach unten, um die Beispiele "
                              "dieses Durchgangs noch einmal zu sehen.",
                              "Faites défiler vers le bas pour revoir les "
                              "exemples de cette session.",
                              "Desplácese hacia abajo para volver a ver los "
                              "ejemplos de esta sesión.",
                              "向下滚动可再次查看本轮示例。",
                              "下にスクロールすると、このセッションの例をもう"
                              "一度見られます。",
                              "مرِّر للأسفل لرؤية أمثلة هذه الجلسة مرة "
                              "أخرى."}},
    [UI_BREAK_TITLE] = {"break.title",
                        {"Time for a short break", "Zeit für eine kurze Pause",
                         "Place à une courte pause",
                         "Es hora de un breve "
                         "descanso",
                         "休息一下", "少し休憩しましょう",
                         "حان وقت استراحة قصيرة"}},
    [UI_BREAK_TEXT] = {"break.text",
                       {"Relax for a moment. Continue when you are ready.",
                        "Entspannen Sie sich einen Moment. Machen Sie weiter, "
                        "wenn Sie bereit sind.",
                        "Détendez-vous un instant. Continuez quand vous êtes "
                        "prêt(e).",
                        "Relájese un momento. Continúe cuando esté listo.",
                        "放松一下。准备好后再继续。",
                        "少しリラックスしてください。準備ができたら続けてくだ"
                        "さい。",
                        "استرخِ قليلًا. تابع عندما تكون مستعدًا."}},
    [UI_TITLE_CONSENT] = {"title.consent",
                          {"Consent", "Einwilligung", "Consentement",
                           "Consentimiento", "知情同意", "同意", "الموافقة"}},
    [UI_TITLE_INSTRUCTIONS] = {"title.instructions",
                               {"Instructions", "Anleitung", "Instructions",
                                "Instrucciones", "说明", "説明", "التعليمات"}},
    [UI_TITLE_QUIZ] = {"quiz.title",
                       {"Questions about the instructions",
                        "Fragen zur Anleitung",
                        "Questions sur les instructions",
                        "Preguntas sobre las instrucciones", "关于说明的问题",
                        "説明についての質問", "أسئلة حول التعليمات"}},
    [UI_TITLE_RATING] = {"rating.title",
                         {"Rate the explanation", "Bewerten Sie die Erklärung",
                          "Évaluez l'explication", "Valore la explicación",
                          "评价这个解释", "説明を評価してください",
                          "قيِّم التفسير"}},
    [UI_TITLE_FEEDBACK] = {"feedback.title",
                           {"Practice: feedback", "Übung: Rückmeldung",
                            "Entraînement : retour", "Práctica: comentarios",
                            "练习：反馈", "練習：フィードバック",
                            "تدريب: ملاحظات"}},
    [UI_TITLE_BREAK] = {"title.break",
                        {"Break", "Pause", "Pause", "Descanso", "休息", "休憩",
                         "استراحة"}},
    [UI_TITLE_DEBRIEF] = {"title.debrief",
                          {"The end", "Ende", "Fin", "Fin", "结束", "終了",
                           "النهاية"}},
    [UI_TITLE_SESSION_EXAMPLES] = {"title.session_examples",
                                   {"Session %d: examples",
                                    "Durchgang %d: Beispiele",
                                    "Session %d : exemples",
                                    "Sesión %d: ejemplos", "第 %d 轮：示例",
                                    "セッション %d：例", "الجلسة %d: أمثلة"}},
    [UI_TITLE_PRACTICE_EXAMPLE] = {"title.practice_example",
                                   {"Practice: an example",
                                    "Übung: ein Beispiel",
                                    "Entraînement : un exemple",
                                    "Práctica: un ejemplo", "练习：示例",
                                    "練習：例", "تدريب: مثال"}},
    [UI_TITLE_LEARN_EXPL] = {"title.learn_explained",
                             {"Learning: examples with explanations",
                              "Lernen: Beispiele mit Erklärungen",
                              "Apprentissage : exemples avec explications",
                              "Aprendizaje: ejemplos con explicaciones",
                              "学习：带解释的示例", "学習：説明付きの例",
                              "التعلّم: أمثلة مع تفسيرات"}},
    [UI_TITLE_LEARN] = {"title.learn",
                        {"Learning: examples", "Lernen: Beispiele",
                         "Apprentissage : exemples", "Aprendizaje: ejemplos",
                         "学习：示例", "学習：例", "التعلّم: أمثلة"}},
    [UI_TITLE_SESSION_PREDICT] = {"title.session_predict",
                                  {"Session %d: predict the model",
                                   "Durchgang %d: Sagen Sie das Modell vorher",
                                   "Session %d : prédisez le modèle",
                                   "Sesión %d: prediga el modelo",
                                   "第 %d 轮：预测模型",
                                   "セッション %d：モデルを予測",
                                   "الجلسة %d: توقَّع النموذج"}},
    [UI_TITLE_PRACTICE_PREDICT] =
        {"title.practice_predict",
         {"Practice: predict the model", "Übung: Sagen Sie das Modell vorher",
          "Entraînement : prédisez le modèle", "Práctica: prediga el modelo",
          "练习：预测模型", "練習：モデルを予測", "تدريب: توقَّع النموذج"}},
    [UI_TITLE_PRE_PREDICT] = {"title.pre_predict",
                              {"Test 1: predict the model",
                               "Test 1: Sagen Sie das Modell vorher",
                               "Test 1 : prédisez le modèle",
                               "Prueba 1: prediga el modelo",
                               "测试 1：预测模型", "テスト 1：モデルを予測",
                               "الاختبار 1: توقَّع النموذج"}},
    [UI_TITLE_POST_PREDICT] = {"title.post_predict",
                               {"Test 2: predict the model",
                                "Test 2: Sagen Sie das Modell vorher",
                                "Test 2 : prédisez le modèle",
                                "Prueba 2: prediga el modelo",
                                "测试 2：预测模型", "テスト 2：モデルを予測",
                                "الاختبار 2: توقَّع النموذج"}},
    [UI_TITLE_PREDICT] = {"title.predict",
                          {"Predict the model", "Sagen Sie das Modell vorher",
                           "Prédisez le modèle", "Prediga el modelo",
                           "预测模型", "モデルを予測", "توقَّع النموذج"}},
    [UI_TITLE_PRE_CF] = {"title.pre_counterfactual",
                         {"Test 1: predict the model on a changed input",
                          "Test 1: Sagen Sie das Modell für eine geänderte "
                          "Eingabe vorher",
                          "Test 1 : prédisez le modèle sur une entrée modifiée",
                          "Prueba 1: prediga el modelo con una entrada "
                          "modificada",
                          "测试 1：预测模型对修改后输入的输出",
                          "テスト 1：変更後の入力でモデルを予測",
                          "الاختبار 1: توقَّع النموذج لمُدخل مُعدَّل"}},
    [UI_TITLE_POST_CF] = {"title.post_counterfactual",
                          {"Test 2: predict the model on a changed input",
                           "Test 2: Sagen Sie das Modell für eine geänderte "
                           "Eingabe vorher",
                           "Test 2 : prédisez le modèle sur une entrée "
                           "modifiée",
                           "Prueba 2: prediga el modelo con una entrada "
                           "modificada",
                           "测试 2：预测模型对修改后输入的输出",
                           "テスト 2：変更後の入力でモデルを予測",
                           "الاختبار 2: توقَّع النموذج لمُدخل مُعدَّل"}},
    [UI_TITLE_CF] = {"title.counterfactual",
                     {"Predict the model on a changed input",
                      "Sagen Sie das Modell für eine geänderte Eingabe vorher",
                      "Prédisez le modèle sur une entrée modifiée",
                      "Prediga el modelo con una entrada modificada",
                      "预测模型对修改后输入的输出",
                      "変更後の入力でモデルを予測", "توقَّع النموذج لمُدخل مُعدَّل"}},
    [UI_PAUSED_TITLE] = {"paused.title",
                         {"Paused", "Pausiert", "En pause", "En pausa",
                          "已暂停", "一時停止中", "متوقف مؤقتًا"}},
    [UI_PAUSED_TEXT] = {"paused.text",
                        {"Please wait. The experimenter will continue the "
                         "study shortly.",
                         "Bitte warten Sie. Die Versuchsleitung setzt die "
                         "Studie gleich fort.",
                         "Veuillez patienter. L'expérimentateur va bientôt "
                         "reprendre l'étude.",
                         "Por favor, espere. El investigador reanudará el "
                         "estudio en breve.",
                         "请稍候。实验人员很快会继续本研究。",
                         "お待ちください。まもなく実験者が研究を再開します。",
                         "يُرجى الانتظار. سيستأنف الباحث الدراسة قريبًا."}},
    [UI_WAIT_TITLE] = {"timeout.title",
                       {"One moment, please", "Einen Moment bitte",
                        "Un instant, s'il vous plaît", "Un momento, por favor",
                        "请稍等", "少々お待ちください", "لحظة من فضلك"}},
    [UI_WAIT_TEXT] = {"timeout.text",
                      {"The study will continue by itself in a moment. There "
                       "is nothing you need to do.",
                       "Die Studie geht gleich von selbst weiter. Sie müssen "
                       "nichts tun.",
                       "L'étude va reprendre d'elle-même dans un instant. "
                       "Vous n'avez rien à faire.",
                       "El estudio continuará por sí solo en un momento. No "
                       "tiene que hacer nada.",
                       "研究稍后会自动继续，您无需进行任何操作。",
                       "研究はまもなく自動的に再開します。操作は必要ありませ"
                       "ん。",
                       "ستستمر الدراسة تلقائيًا بعد لحظة. لا يلزمك فعل "
                       "أي شيء."}},
    [UI_SCREENED_OUT_TITLE] =
        {"screened_out.title",
         {"Thank you for taking part", "Vielen Dank für Ihre Teilnahme",
          "Merci de votre participation", "Gracias por participar",
          "感谢您的参与", "ご参加ありがとうございました", "شكرًا لمشاركتك"}},
    [UI_SCREENED_OUT_TEXT] =
        {"screened_out.text",
         {"This part of the study is over. Please let the "
          "experimenter know that you have finished.",
          "Dieser Teil der Studie ist beendet. Bitte "
          "geben Sie der Versuchsleitung Bescheid, dass "
          "Sie fertig sind.",
          "Cette partie de l'étude est terminée. Veuillez "
          "prévenir l'expérimentateur que vous avez "
          "fini.",
          "Esta parte del estudio ha terminado. Por favor, "
          "avise al investigador de que ha terminado.",
          "本部分研究已结束。请告知实验人员您已完成。",
          "この部分の研究は終了です。終わったことを実験者"
          "に伝えてください。",
          "انتهى هذا الجزء من الدراسة. يُرجى إبلاغ "
          "الباحث بأنك انتهيت."}},
    [UI_DONE_TITLE] = {"done.title",
                       {"Thank you!", "Vielen Dank!", "Merci !", "¡Gracias!",
                        "谢谢！", "ありがとうございました！", "شكرًا لك!"}},
    [UI_DONE_TEXT] = {"done.text",
                      {"You have finished the study. Please let the "
                       "experimenter know.",
                       "Sie haben die Studie abgeschlossen. Bitte geben Sie "
                       "der Versuchsleitung Bescheid.",
                       "Vous avez terminé l'étude. Veuillez prévenir "
                       "l'expérimentateur.",
                       "Ha terminado el estudio. Por favor, avise al "
                       "investigador.",
                       "您已完成本研究。请告知实验人员。",
                       "研究は終了です。実験者に伝えてください。",
                       "لقد أنهيت الدراسة. يُرجى إبلاغ الباحث."}},
    [UI_PROGRESS] = {"progress",
                     {"%d of %d", "%d von %d", "%d sur %d", "%d de %d",
                      "%d / %d", "%d / %d", "%d من %d"}},
    [UI_IMAGE_MISSING] = {"image_missing",
                          {"[image missing: %s]", "[Bild fehlt: %s]",
                           "[image manquante : %s]", "[falta la imagen: %s]",
                           "[缺少图片：%s]", "[画像がありません：%s]",
                           "[صورة مفقودة: %s]"}},
    [UI_EXPL_TEXT_A] = {"expl.text_a",
                        {"First text", "Erster Text", "Premier texte",
                         "Primer texto", "第一段文本", "1 つ目のテキスト",
                         "النص الأول"}},
    [UI_EXPL_TEXT_B] = {"expl.text_b",
                        {"Second text", "Zweiter Text", "Second texte",
                         "Segundo texto", "第二段文本", "2 つ目のテキスト",
                         "النص الثاني"}},
    [UI_EXPL_FIRST] = {"expl.first",
                       {"First", "Erster", "Premier", "Primero", "第一",
                        "1 つ目", "الأول"}},
    [UI_EXPL_SECOND] = {"expl.second",
                        {"Second", "Zweiter", "Second", "Segundo", "第二",
                         "2 つ目", "الثاني"}},
    [UI_EXPL_LESS_IMPORTANT] = {"expl.less_important",
                                {"less important", "weniger wichtig",
                                 "moins important", "menos importante",
                                 "较不重要", "重要度低", "أقل أهمية"}},
    [UI_EXPL_MORE_IMPORTANT] = {"expl.more_important",
                                {"more important", "wichtiger",
                                 "plus important", "más importante", "较重要",
                                 "重要度高", "أكثر أهمية"}},
    [UI_EXPL_TOWARD] = {"expl.toward",
                        {"toward %s", "in Richtung %s", "vers %s", "hacia %s",
                         "倾向 %s", "%s 寄り", "نحو %s"}},
    [UI_EXPL_INTERACTIONS] = {"expl.interactions",
                              {"Strongest interactions",
                               "Stärkste Wechselwirkungen",
                               "Interactions les plus fortes",
                               "Interacciones más fuertes", "最强的交互作用",
                               "最も強い相互作用", "أقوى التفاعلات"}},
    [UI_EXPL_BASELINE] = {"expl.baseline",
                          {"Baseline (intercept)",
                           "Grundwert (Achsenabschnitt)",
                           "Valeur de base (ordonnée à l'origine)",
                           "Valor base (intercepto)", "基线（截距）",
                           "基準値（切片）", "القيمة الأساسية (الثابت)"}},
    [UI_EXPL_SUM] = {"expl.sum",
                     {"Sum of weights", "Summe der Gewichte", "Somme des poids",
                      "Suma de los pesos", "权重之和", "重みの合計",
                      "مجموع الأوزان"}},
    [UI_EXPL_TOTAL] = {"expl.total",
                       {"Model output (total evidence)",
                        "Ausgabe des Modells (gesamte Evidenz)",
                        "Réponse du modèle (score total)",
                        "Respuesta del modelo (evidencia total)",
                        "模型输出（总证据）", "モデルの出力（総合スコア）",
                        "ناتج النموذج (مجموع الأدلة)"}},
    [UI_EXPL_IF] = {"expl.if",
                    {"IF", "WENN", "SI", "SI", "如果", "もし", "إذا"}},
    [UI_EXPL_AND] = {"expl.and",
                     {"AND", "UND", "ET", "Y", "并且", "かつ", "و"}},
    [UI_EXPL_THEN] = {"expl.then",
                      {"THEN the model predicts **%s**",
                       "DANN sagt das Modell **%s** vorher",
                       "ALORS le modèle prédit **%s**",
                       "ENTONCES el modelo predice **%s**",
                       "则模型预测为 **%s**", "ならば、モデルの予測は **%s**",
                       "فإن النموذج يتوقع **%s**"}},
    [UI_EXPL_THIS_CLASS] = {"expl.this_class",
                            {"this class", "diese Klasse", "cette classe",
                             "esta clase", "该类别", "このクラス",
                             "هذه الفئة"}},
    [UI_EXPL_PRECISION] = {"expl.precision",
                           {"Precision %.0f%%", "Präzision %.0f%%",
                            "Précision %.0f%%", "Precisión %.0f%%",
                            "精确率 %.0f%%", "適合率 %.0f%%", "الدقة %.0f%%"}},
    [UI_EXPL_COVERAGE] = {"expl.coverage",
                          {"Coverage %.0f%%", "Abdeckung %.0f%%",
                           "Couverture %.0f%%", "Cobertura %.0f%%",
                           "覆盖率 %.0f%%", "カバー率 %.0f%%",
                           "التغطية %.0f%%"}},
    [UI_EXPL_PROTOTYPE_EVIDENCE] =
        {"expl.prototype_evidence",
         {"Most similar prototype: label **%s**, evidence %+.2f",
          "Ähnlichster Prototyp: Klasse **%s**, Evidenz %+.2f",
          "Prototype le plus proche : classe **%s**, score %+.2f",
          "Prototipo más parecido: clase **%s**, evidencia %+.2f",
          "最相似的原型：标签 **%s**，证据 %+.2f",
          "最も似ているプロトタイプ：ラベル **%s**、スコア %+.2f",
          "أقرب نموذج أولي: التصنيف **%s**، الدليل %+.2f"}},
    [UI_EXPL_PROTOTYPE] = {"expl.prototype",
                           {"Most similar prototype: label **%s**",
                            "Ähnlichster Prototyp: Klasse **%s**",
                            "Prototype le plus proche : classe **%s**",
                            "Prototipo más parecido: clase **%s**",
                            "最相似的原型：标签 **%s**",
                            "最も似ているプロトタイプ：ラベル **%s**",
                            "أقرب نموذج أولي: التصنيف **%s**"}},
    [UI_EXPL_COL_FEATURE] = {"expl.column_feature",
                             {"Feature", "Merkmal", "Caractéristique",
                              "Característica", "特征", "特徴", "السمة"}},
    [UI_EXPL_COL_PROTOTYPE] = {"expl.column_prototype",
                               {"Prototype", "Prototyp", "Prototype",
                                "Prototipo", "原型", "プロトタイプ",
                                "النموذج الأولي"}},
    [UI_EXPL_COL_INPUT] = {"expl.column_input",
                           {"This input", "Diese Eingabe", "Cette entrée",
                            "Esta entrada", "当前输入", "この入力",
                            "هذا المُدخل"}},
    [UI_EXPL_DIFFER] = {"expl.differ",
                        {"Highlighted rows: the prototype and the input "
                         "differ.",
                         "Hervorgehobene Zeilen: Prototyp und Eingabe "
                         "unterscheiden sich.",
                         "Lignes en surbrillance : le prototype et l'entrée "
                         "diffèrent.",
                         "Filas resaltadas: el prototipo y la entrada "
                         "difieren.",
                         "高亮的行：原型与输入不同。",
                         "強調表示の行：プロトタイプと入力が異なります。",
                         "الصفوف المميَّزة: يختلف النموذج الأولي عن "
                         "المُدخل."}},
    [UI_EXPL_IMPORTANT] = {"expl.important",
                           {"Important features", "Wichtige Merkmale",
                            "Caractéristiques importantes",
                            "Características importantes", "重要特征",
                            "重要な特徴", "السمات المهمة"}},
    [UI_EXPL_PATH_TOWARD] =
        {"expl.path_toward",
         {"Edits that move the model toward **%s**, with the evidence margin "
          "after each step (the model changes its answer where the margin "
          "crosses 0).",
          "Änderungen, die das Modell in Richtung **%s** bewegen, mit dem "
          "Evidenzabstand nach jedem Schritt (das Modell ändert seine Antwort, "
          "wo der Abstand 0 überschreitet).",
          "Modifications qui font pencher le modèle vers **%s**, avec la marge "
          "après chaque étape (le modèle change de réponse quand la marge "
          "passe par 0).",
          "Cambios que acercan el modelo a **%s**, con el margen de evidencia "
          "tras cada paso (el modelo cambia su respuesta donde el margen cruza "
          "el 0).",
          "使模型倾向 **%s** 的修改，以及每一步后的证据差值（差值越过 0 "
          "时，模型改变答案）。",
          "モデルを **%s** に近づける変更と、各ステップ後の差（差が 0 "
          "をまたぐところでモデルの答えが変わります）。",
          "تعديلات تدفع النموذج نحو **%s**، مع هامش الدليل بعد كل خطوة "
          "(يغيّر النموذج إجابته حيث يتجاوز الهامش 0)."}},
    [UI_EXPL_PATH] = {"expl.path",
                      {"Edits toward the decision boundary, with the evidence "
                       "margin after each step.",
                       "Änderungen in Richtung der Entscheidungsgrenze, mit "
                       "dem Evidenzabstand nach jedem Schritt.",
                       "Modifications vers la frontière de décision, avec la "
                       "marge après chaque étape.",
                       "Cambios hacia la frontera de decisión, con el margen "
                       "de evidencia tras cada paso.",
                       "朝决策边界方向的修改，以及每一步后的证据差值。",
                       "決定境界に向かう変更と、各ステップ後の差。",
                       "تعديلات نحو حد القرار، مع هامش الدليل بعد كل "
                       "خطوة."}},
    [UI_EXPL_START] = {"expl.start",
                       {"Start", "Start", "Départ", "Inicio", "起点", "開始",
                        "البداية"}},
    [UI_EXPL_STEP] = {"expl.step",
                      {"Step %zu", "Schritt %zu", "Étape %zu", "Paso %zu",
                       "第 %zu 步", "ステップ %zu", "الخطوة %zu"}},
    [UI_EXPL_AS_IS] = {"expl.as_is",
                       {"the input as it is", "die Eingabe, wie sie ist",
                        "l'entrée telle quelle", "la entrada tal cual",
                        "输入保持原样", "入力そのまま", "المُدخل كما هو"}},
    [UI_QUESTIONNAIRE_OPTIONAL] = {"questionnaire.optional",
                                   {"(optional)", "(freiwillig)",
                                    "(facultatif)", "(opcional)", "（选填）",
                                    "（任意）", "(اختياري)"}},
    [UI_QUESTIONNAIRE_MISSING] =
        {"questionnaire.missing",
         {"Please answer this question.", "Bitte beantworten Sie diese Frage.",
          "Veuillez répondre à cette question.",
          "Por favor, responda a esta pregunta.", "请回答此问题。",
          "この質問に答えてください。", "يرجى الإجابة عن هذا السؤال."}},
    [UI_SCROLL_HINT] = {"scroll.hint",
                        {"Scroll to read to the end",
                         "Scrollen Sie bis zum Ende, um alles zu lesen",
                         "Faites défiler jusqu'à la fin pour tout lire",
                         "Desplácese hasta el final para leerlo todo",
                         "请滚动到底部以阅读全部内容",
                         "最後までスクロールしてお読みください",
                         "مرِّر حتى النهاية لقراءة كل شيء"}},
    [UI_CONFIDENCE_QUESTION] =
        {"confidence.question",
         {"How confident are you in your answer?",
          "Wie sicher sind Sie sich bei Ihrer Antwort?",
          "Dans quelle mesure êtes-vous sûr de votre réponse ?",
          "¿Qué tan seguro está de su respuesta?", "您对自己的回答有多确定？",
          "回答にどのくらい自信がありますか？", "ما مدى ثقتك في إجابتك؟"}},
    [UI_CONFIDENCE_LOW] = {"confidence.low",
                           {"Guessing", "Geraten", "Au hasard", "Al azar",
                            "猜测", "当て推量", "تخمين"}},
    [UI_CONFIDENCE_HIGH] = {"confidence.high",
                            {"Certain", "Sicher", "Certain", "Seguro", "确定",
                             "確信している", "متأكد"}},
    [UI_QUESTIONNAIRE_NUMBER_RANGE] =
        {"questionnaire.number_range",
         {"Enter a number from %g to %g.",
          "Geben Sie eine Zahl von %g bis %g ein.",
          "Saisissez un nombre entre %g et %g.",
          "Introduzca un número entre %g y %g.", "请输入 %g 到 %g 之间的数字。",
          "%g から %g までの数値を入力してください。",
          "أدخل رقمًا من %g إلى %g."}},
    [UI_QUESTIONNAIRE_NUMBER_MIN] =
        {"questionnaire.number_min",
         {"Enter a number of at least %g.",
          "Geben Sie eine Zahl von mindestens %g ein.",
          "Saisissez un nombre supérieur ou égal à %g.",
          "Introduzca un número mayor o igual que %g.",
          "请输入不小于 %g 的数字。", "%g 以上の数値を入力してください。",
          "أدخل رقمًا لا يقل عن %g."}},
    [UI_QUESTIONNAIRE_NUMBER_MAX] =
        {"questionnaire.number_max",
         {"Enter a number of at most %g.",
          "Geben Sie eine Zahl von höchstens %g ein.",
          "Saisissez un nombre inférieur ou égal à %g.",
          "Introduzca un número menor o igual que %g.",
          "请输入不大于 %g 的数字。", "%g 以下の数値を入力してください。",
          "أدخل رقمًا لا يزيد عن %g."}},
    [UI_QUESTIONNAIRE_NUMBER] = {"questionnaire.number",
                                 {"Enter a number.", "Geben Sie eine Zahl ein.",
                                  "Saisissez un nombre.",
                                  "Introduzca un número.", "请输入一个数字。",
                                  "数値を入力してください。", "أدخل رقمًا."}},
    [UI_QUESTIONNAIRE_CHOICE] =
        {"questionnaire.choice",
         {"Choose one of the options.", "Wählen Sie eine der Optionen.",
          "Choisissez l'une des options.", "Elija una de las opciones.",
          "请选择其中一个选项。", "選択肢から1つ選んでください。",
          "اختر أحد الخيارات."}},
    [UI_QUESTIONNAIRE_LIKERT] = {"questionnaire.likert",
                                 {"Choose a point from 1 to %d.",
                                  "Wählen Sie einen Punkt von 1 bis %d.",
                                  "Choisissez un point de 1 à %d.",
                                  "Elija un punto del 1 al %d.",
                                  "请在 1 到 %d 之间选择一个分值。",
                                  "1 から %d までの目盛りを選んでください。",
                                  "اختر نقطة من 1 إلى %d."}},
    [UI_QUESTIONNAIRE_TEXT_INVALID] =
        {"questionnaire.text_invalid",
         {"This text has characters that cannot be stored.",
          "Dieser Text enthält Zeichen, die nicht gespeichert werden können.",
          "Ce texte contient des caractères impossibles à enregistrer.",
          "Este texto contiene caracteres que no se pueden guardar.",
          "此文本包含无法保存的字符。",
          "このテキストには保存できない文字が含まれています。",
          "يحتوي هذا النص على أحرف لا يمكن حفظها."}},
    [UI_QUESTIONNAIRE_TOO_LONG] =
        {"questionnaire.too_long",
         {"At most %d characters, please.", "Bitte höchstens %d Zeichen.",
          "%d caractères au maximum, s'il vous plaît.",
          "Como máximo %d caracteres, por favor.", "最多 %d 个字符。",
          "%d 文字以内で入力してください。", "الحد الأقصى %d حرفًا."}},
    [UI_EXPL_SHOW] = {"expl.show",
                      {"Show explanation", "Erklärung anzeigen",
                       "Afficher l'explication", "Mostrar la explicación",
                       "显示解释", "説明を表示", "إظهار التفسير"}},
    [UI_EXPL_HIDE] = {"expl.hide",
                      {"Hide explanation", "Erklärung ausblenden",
                       "Masquer l'explication", "Ocultar la explicación",
                       "隐藏解释", "説明を隠す", "إخفاء التفسير"}},
    [UI_EXPL_SHOW_KEY] = {"expl.show_key", {"e", "e", "e", "e", "e", "e", "e"}},
    [UI_EXPL_HOVER_HINT] =
        {"expl.hover_hint",
         {"Point at a word, bar or image to see its value (Tab moves through "
          "them).",
          "Zeigen Sie auf ein Wort, einen Balken oder ein Bild, um seinen Wert "
          "zu sehen (Tab wechselt zwischen ihnen).",
          "Pointez un mot, une barre ou une image pour voir sa valeur (Tab "
          "passe de l'un à l'autre).",
          "Señale una palabra, una barra o una imagen para ver su valor (Tab "
          "pasa de uno a otro).",
          "将鼠标指向词语、条形或图片即可查看其数值（按 Tab 键依次切换）。",
          "単語・棒・画像にポインターを合わせると値が表示されます（Tab "
          "キーで順に移動）。",
          "أشِر إلى كلمة أو شريط أو صورة لترى قيمتها (ينتقل مفتاح Tab بينها)."}},
    [UI_EXPL_BARS_SUM] = {"expl.bars_sum",
                          {"Sum", "Summe", "Somme", "Suma", "总和", "合計",
                           "المجموع"}},
    [UI_NUMBER_DECIMAL] = {"number.decimal",
                           {".", ",", ",", ",", ".", ".", "."}},
    [UI_DONE_ONLINE] =
        {"done.online",
         {"You have finished the study. Thank you for taking part; you may "
          "close this page.",
          "Sie haben die Studie abgeschlossen. Vielen Dank für Ihre Teilnahme; "
          "Sie können diese Seite schließen.",
          "Vous avez terminé l'étude. Merci de votre participation ; vous "
          "pouvez fermer cette page.",
          "Ha terminado el estudio. Gracias por participar; puede cerrar esta "
          "página.",
          "您已完成本研究。感谢您的参与，您可以关闭此页面。",
          "調査は終了しました。ご参加ありがとうございました。このページを閉じて"
          "かまいません。",
          "لقد أنهيت الدراسة. شكرًا لمشاركتك؛ يمكنك إغلاق هذه الصفحة."}},
    [UI_DONE_ONLINE_CODE] =
        {"done.online_code",
         {"You have finished the study. Return to the study platform with the "
          "completion code below to be credited.",
          "Sie haben die Studie abgeschlossen. Kehren Sie mit dem "
          "Abschlusscode unten zur Plattform zurück, damit Ihre Teilnahme "
          "angerechnet wird.",
          "Vous avez terminé l'étude. Retournez sur la plateforme avec le code "
          "de fin ci-dessous pour que votre participation soit validée.",
          "Ha terminado el estudio. Vuelva a la plataforma con el código de "
          "finalización de abajo para que se le acredite.",
          "您已完成本研究。请使用下方的完成码返回研究平台，以便记录您的参与。",
          "調査は終了しました。下の完了コードを持って調査プラットフォームに戻る"
          "と、参加が認定されます。",
          "لقد أنهيت الدراسة. عُد إلى منصة الدراسة برمز الإكمال أدناه لتُحتسب "
          "مشاركتك."}},
    [UI_SCREENED_OUT_ONLINE] =
        {"screened_out.online",
         {"This part of the study is over. Thank you for taking part; you may "
          "close this page.",
          "Dieser Teil der Studie ist beendet. Vielen Dank für Ihre Teilnahme; "
          "Sie können diese Seite schließen.",
          "Cette partie de l'étude est terminée. Merci de votre participation "
          "; vous pouvez fermer cette page.",
          "Esta parte del estudio ha terminado. Gracias por participar; puede "
          "cerrar esta página.",
          "本部分研究已结束。感谢您的参与，您可以关闭此页面。",
          "調査のこの部分は終了しました。ご参加ありがとうございました。このペー"
          "ジを閉じてかまいません。",
          "انتهى هذا الجزء من الدراسة. شكرًا لمشاركتك؛ يمكنك إغلاق هذه "
          "الصفحة."}},
    [UI_WEB_LOADING] = {"web.loading",
                        {"Loading…", "Wird geladen …", "Chargement…",
                         "Cargando…", "正在加载…", "読み込み中…",
                         "جارٍ التحميل…"}},
    [UI_WEB_OFFLINE] =
        {"web.offline",
         {"The connection is lost. Your answers are kept on this device and "
          "sent as soon as it is back.",
          "Die Verbindung ist unterbrochen. Ihre Antworten bleiben auf diesem "
          "Gerät und werden gesendet, sobald sie wieder besteht.",
          "La connexion est perdue. Vos réponses restent sur cet appareil et "
          "seront envoyées dès son retour.",
          "Se ha perdido la conexión. Sus respuestas se guardan en este "
          "dispositivo y se enviarán en cuanto vuelva.",
          "连接已中断。您的回答保存在本设备上，连接恢复后会立即发送。",
          "接続が切れました。回答はこの端末に保存され、接続が戻りしだい送信され"
          "ます。",
          "انقطع الاتصال. تبقى إجاباتك محفوظة على هذا الجهاز وتُرسل فور "
          "عودته."}},
    [UI_WEB_SAVING] = {"web.saving",
                       {"Saving…", "Wird gespeichert …", "Enregistrement…",
                        "Guardando…", "正在保存…", "保存中…", "جارٍ الحفظ…"}},
    [UI_WEB_NOT_TAKEN] =
        {"web.not_taken",
         {"Your answer is already taken; this press did not count.",
          "Ihre Antwort ist bereits angenommen; dieser Klick zählt nicht.",
          "Votre réponse est déjà prise en compte ; ce clic ne compte pas.",
          "Su respuesta ya está registrada; esta pulsación no cuenta.",
          "您的回答已被接收；此次点击不计入。",
          "回答はすでに受け付けました。この操作は数えられません。",
          "تم أخذ إجابتك بالفعل؛ لم تُحتسب هذه الضغطة."}},
    [UI_WEB_OTHER_TITLE] = {"web.other_title",
                            {"The study continues in another window",
                             "Die Studie läuft in einem anderen Fenster weiter",
                             "L'étude continue dans une autre fenêtre",
                             "El estudio continúa en otra ventana",
                             "研究在另一个窗口中继续",
                             "この調査は別のウィンドウで続いています",
                             "تستمر الدراسة في نافذة أخرى"}},
    [UI_WEB_OTHER_TEXT] =
        {"web.other_text",
         {"You opened this study again in another window or tab. Close this "
          "one, or continue here.",
          "Sie haben diese Studie in einem anderen Fenster oder Tab erneut "
          "geöffnet. Schließen Sie dieses oder machen Sie hier weiter.",
          "Vous avez rouvert cette étude dans une autre fenêtre ou un autre "
          "onglet. Fermez celle-ci, ou continuez ici.",
          "Ha vuelto a abrir este estudio en otra ventana o pestaña. Cierre "
          "esta o continúe aquí.",
          "您在另一个窗口或标签页中再次打开了本研究。请关闭此窗口，或在此继续"
          "。",
          "この調査を別のウィンドウまたはタブで開き直しました。こちらを閉じるか"
          "、ここで続けてください。",
          "لقد فتحت هذه الدراسة مرة أخرى في نافذة أو علامة تبويب أخرى. أغلق "
          "هذه النافذة أو تابع هنا."}},
    [UI_WEB_CONTINUE_HERE] = {"web.continue_here",
                              {"Continue here", "Hier weitermachen",
                               "Continuer ici", "Continuar aquí", "在此继续",
                               "ここで続ける", "تابع هنا"}},
    [UI_WEB_NO_ID_TITLE] = {"web.no_id_title",
                            {"This link is incomplete",
                             "Dieser Link ist unvollständig",
                             "Ce lien est incomplet",
                             "Este enlace está incompleto", "此链接不完整",
                             "このリンクは不完全です", "هذا الرابط غير مكتمل"}},
    [UI_WEB_NO_ID_TEXT] =
        {"web.no_id_text",
         {"The link lacks your participant id. Please open the study again "
          "from the page where you found it.",
          "Dem Link fehlt Ihre Teilnehmerkennung. Bitte öffnen Sie die Studie "
          "erneut von der Seite, auf der Sie sie gefunden haben.",
          "Il manque votre identifiant de participant dans le lien. Veuillez "
          "rouvrir l'étude depuis la page où vous l'avez trouvée.",
          "Al enlace le falta su identificador de participante. Vuelva a abrir "
          "el estudio desde la página donde lo encontró.",
          "链接中缺少您的参与者编号。请从您找到本研究的页面重新打开。",
          "リンクに参加者 ID "
          "がありません。調査を見つけたページからもう一度開いてください。",
          "ينقص الرابط معرّف المشارك الخاص بك. يُرجى فتح الدراسة مرة أخرى من "
          "الصفحة التي وجدتها فيها."}},
    [UI_WEB_ERROR_TITLE] = {"web.error_title",
                            {"The study cannot be shown",
                             "Die Studie kann nicht angezeigt werden",
                             "L'étude ne peut pas être affichée",
                             "No se puede mostrar el estudio", "无法显示本研究",
                             "調査を表示できません", "لا يمكن عرض الدراسة"}},
    [UI_WEB_CODE_TITLE] = {"web.code_title",
                           {"Your completion code", "Ihr Abschlusscode",
                            "Votre code de fin", "Su código de finalización",
                            "您的完成码", "完了コード",
                            "رمز الإكمال الخاص بك"}},
    [UI_WEB_CODE_LINK] = {"web.code_link",
                          {"Complete the study on the platform",
                           "Studie auf der Plattform abschließen",
                           "Terminer l'étude sur la plateforme",
                           "Completar el estudio en la plataforma",
                           "在平台上完成本研究",
                           "プラットフォームで調査を完了する",
                           "أكمل الدراسة على المنصة"}},
    [UI_WEB_COPY] = {"web.copy",
                     {"Copy", "Kopieren", "Copier", "Copiar", "复制", "コピー",
                      "نسخ"}},
    [UI_WEB_COPIED] = {"web.copied",
                       {"Copied", "Kopiert", "Copié", "Copiado", "已复制",
                        "コピーしました", "تم النسخ"}},
    [UI_WEB_WAIT_SERVER] =
        {"web.wait_server",
         {"Please wait a moment; your answer is being saved.",
          "Einen Moment bitte, Ihre Antwort wird gespeichert.",
          "Un instant, votre réponse est enregistrée.",
          "Un momento, se está guardando su respuesta.",
          "请稍候，正在保存您的回答。",
          "少々お待ちください。回答を保存しています。",
          "لحظة من فضلك، يجري حفظ إجابتك."}},
    [UI_WEB_RESUME_CODE_TITLE] = {"web.resume_code_title",
                                  {"Your resume code", "Ihr Fortsetzungscode",
                                   "Votre code de reprise",
                                   "Su código de reanudación", "您的续答码",
                                   "再開コード", "رمز المتابعة الخاص بك"}},
    [UI_WEB_RESUME_CODE_KEEP] =
        {"web.resume_code_keep",
         {"Write it down: with it you can continue on another device.",
          "Notieren Sie ihn: Damit können Sie auf einem anderen Gerät "
          "weitermachen.",
          "Notez-le : il vous permet de continuer sur un autre appareil.",
          "Anótelo: con él puede continuar en otro dispositivo.",
          "请记下：凭此码可在其他设备上继续。",
          "控えておいてください。別の端末で続けるときに使います。",
          "دوّنه: تستطيع به المتابعة على جهاز آخر."}},
    [UI_WEB_RESUME_TITLE] =
        {"web.resume_title",
         {"This study was started in another browser",
          "Diese Studie wurde in einem anderen Browser begonnen",
          "Cette étude a été commencée dans un autre navigateur",
          "Este estudio se inició en otro navegador",
          "本研究已在另一个浏览器中开始",
          "この研究は別のブラウザで開始されています",
          "بدأت هذه الدراسة في متصفح آخر"}},
    [UI_WEB_RESUME_ASK] =
        {"web.resume_ask",
         {"To continue here, enter the resume code you were shown after the "
          "consent.",
          "Um hier weiterzumachen, geben Sie den Fortsetzungscode ein, der "
          "Ihnen nach der Einwilligung angezeigt wurde.",
          "Pour continuer ici, saisissez le code de reprise qui vous a été "
          "affiché après le consentement.",
          "Para continuar aquí, introduzca el código de reanudación que se le "
          "mostró después del consentimiento.",
          "要在此继续，请输入同意之后向您显示的续答码。",
          "ここで続けるには、同意の後に表示された再開コードを入力してください"
          "。",
          "للمتابعة هنا، أدخل رمز المتابعة الذي عُرض عليك بعد الموافقة."}},
    [UI_WEB_RESUME_OTHER] =
        {"web.resume_other",
         {"Please continue in the browser where you started, or open the study "
          "again from the platform's page (the same link).",
          "Bitte machen Sie in dem Browser weiter, in dem Sie begonnen haben, "
          "oder öffnen Sie die Studie erneut über die Seite der Plattform "
          "(derselbe Link).",
          "Veuillez continuer dans le navigateur où vous avez commencé, ou "
          "rouvrir l'étude depuis la page de la plateforme (le même lien).",
          "Continúe en el navegador donde empezó, o vuelva a abrir el estudio "
          "desde la página de la plataforma (el mismo enlace).",
          "请在您开始时使用的浏览器中继续，或从平台页面重新打开本研究（同一链接"
          "）。",
          "開始したブラウザで続けるか、プラットフォームのページから（同じリンク"
          "で）研究を開き直してください。",
          "يُرجى المتابعة في المتصفح الذي بدأت فيه، أو افتح الدراسة مجددًا من "
          "صفحة المنصة (الرابط نفسه)."}},
    [UI_WEB_RESUME_LABEL] = {"web.resume_label",
                             {"Resume code", "Fortsetzungscode",
                              "Code de reprise", "Código de reanudación",
                              "续答码", "再開コード", "رمز المتابعة"}},
    [UI_WEB_RESUME_GO] = {"web.resume_go",
                          {"Continue", "Weiter", "Continuer", "Continuar",
                           "继续", "続ける", "متابعة"}},
    [UI_WEB_RESUME_WRONG] =
        {"web.resume_wrong",
         {"This code does not continue this study. Please check it and try "
          "again.",
          "Mit diesem Code lässt sich die Studie nicht fortsetzen. Bitte "
          "prüfen Sie ihn und versuchen Sie es erneut.",
          "Ce code ne permet pas de reprendre cette étude. Vérifiez-le et "
          "réessayez.",
          "Este código no permite continuar este estudio. Compruébelo e "
          "inténtelo de nuevo.",
          "此代码无法继续本研究。请检查后重试。",
          "このコードではこの研究を再開できません。確認してもう一度お試しくださ"
          "い。",
          "لا يتيح هذا الرمز متابعة هذه الدراسة. يُرجى التحقق منه والمحاولة مرة "
          "أخرى."}},
    [UI_VERIFY_QUESTION] = {"verify.question",
                            {"Is the model's output right?",
                             "Ist die Ausgabe des Modells richtig?",
                             "La réponse du modèle est-elle juste ?",
                             "¿Es correcta la respuesta del modelo?",
                             "模型的输出正确吗？",
                             "モデルの出力は正しいですか？",
                             "هل مُخرَج النموذج صحيح؟"}},
    [UI_VERIFY_ACCEPT] = {"verify.accept",
                          {"The model is right", "Das Modell hat recht",
                           "Le modèle a raison", "El modelo acierta",
                           "模型是对的", "モデルは正しい", "النموذج مُحق"}},
    [UI_VERIFY_REJECT] = {"verify.reject",
                          {"The model is wrong", "Das Modell irrt sich",
                           "Le modèle se trompe", "El modelo se equivoca",
                           "模型是错的", "モデルは間違っている",
                           "النموذج مُخطئ"}},
    [UI_DECIDE_QUESTION] = {"decide.question",
                            {"What is the right answer?",
                             "Was ist die richtige Antwort?",
                             "Quelle est la bonne réponse ?",
                             "¿Cuál es la respuesta correcta?",
                             "正确答案是什么？", "正しい答えはどれですか？",
                             "ما الإجابة الصحيحة؟"}},
    [UI_TITLE_VERIFY] = {"title.verify",
                         {"Is the model right?", "Hat das Modell recht?",
                          "Le modèle a-t-il raison ?", "¿Acierta el modelo?",
                          "模型对吗？", "モデルは正しいですか？",
                          "هل النموذج مُحق؟"}},
    [UI_TITLE_DECIDE] = {"title.decide",
                         {"Your decision", "Ihre Entscheidung",
                          "Votre décision", "Su decisión", "您的判断",
                          "あなたの判断", "قرارك"}},
};

_Static_assert(sizeof ui_rows / sizeof *ui_rows == UI_KEY_COUNT,
               "one row per UiKey");

#endif
